// keep_freed_memory(): a buffer freed and allocated again, as activations are every training
// iteration, comes back without faulting its pages in again. (ctest runs each test in its own
// process, so the malloc settings made here do not leak into other tests.)
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <torch/torch.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/allocator.h"

namespace dtbench {
namespace {

constexpr int64_t kBufferBytes = int64_t{64} << 20;  // above glibc's largest dynamic threshold
constexpr int64_t kPages = kBufferBytes / 4096;

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Page faults of allocating, writing and freeing the buffer once, after a first round.
long faults_per_round() {
  auto round = [] { at::empty({kBufferBytes}, at::kByte).fill_(1); };
  round();
  const long before = minor_faults();
  for (int i = 0; i < 3; ++i) round();
  return (minor_faults() - before) / 3;
}

// With transparent huge pages always on, a fresh mapping faults in 2 MiB at a time.
bool huge_pages_always() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find("[always]") != std::string::npos;
}

void unset_malloc_environment() {
  for (const char* name : {"GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"}) {
    unsetenv(name);
  }
}

TEST(Allocator, FreedBuffersAreReusedWithoutFaultingAgain) {
  unset_malloc_environment();
  const long by_default = faults_per_round();
  keep_freed_memory();
  EXPECT_EQ(allocator_settings(), "keep freed memory (mmap and trim thresholds 1 GiB)");
  const long kept = faults_per_round();
  EXPECT_LT(kept, kPages / 100) << "by default: " << by_default;
  // glibc's default maps a buffer this size afresh every time: every page faults again.
  if (!huge_pages_always()) {
    EXPECT_GT(by_default, kPages / 2) << "kept: " << kept;
  }
}

TEST(Allocator, LeavesMallocToTheEnvironmentWhenItSaysAnything) {
  unset_malloc_environment();
  setenv("GLIBC_TUNABLES", "", 1);
  keep_freed_memory();
  EXPECT_EQ(allocator_settings(), "environment (GLIBC_TUNABLES=)");
  if (!huge_pages_always()) {
    EXPECT_GT(faults_per_round(), kPages / 2);  // glibc's defaults still apply
  }
  unsetenv("GLIBC_TUNABLES");
}

}  // namespace
}  // namespace dtbench
