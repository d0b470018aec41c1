#include "common/allocator.h"

#include <malloc.h>

#include <cstdlib>

namespace dtbench {
namespace {

std::string& settings() {
  static std::string text = "glibc default";
  return text;
}

}  // namespace

void keep_freed_memory() {
  std::string from_environment;
  for (const char* name : {"GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    from_environment += (from_environment.empty() ? "" : " ") + std::string(name) + "=" + value;
  }
  if (!from_environment.empty()) {
    settings() = "environment (" + from_environment + ")";
    return;
  }
  // Both or neither: setting either one alone turns off glibc's dynamic mmap threshold and
  // leaves the other at its 128 KiB default, which faults more than the defaults do.
  if (mallopt(M_MMAP_THRESHOLD, kKeptMemoryThresholdBytes) == 1 &&
      mallopt(M_TRIM_THRESHOLD, kKeptMemoryThresholdBytes) == 1) {
    settings() = "keep freed memory (mmap and trim thresholds 1 GiB)";
  }
}

std::string allocator_settings() {
  return settings();
}

}  // namespace dtbench
