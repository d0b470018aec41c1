// keep_freed_memory(): the activations a training iteration frees come back in the next one
// without faulting their pages in again (on VGG-11 at batch 32 here, about 20,000 faults per
// iteration by glibc's defaults, none after). The settings are per process and cannot be
// undone: ctest runs each test in its own process.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <torch/torch.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/allocator.h"
#include "models/models.h"

namespace dtbench {
namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Page faults per training iteration of VGG-11 (batch 32, one thread), after two iterations.
long faults_per_iteration() {
  torch::set_num_threads(1);
  torch::manual_seed(1);
  auto model = find_model("vgg11").make();
  auto images = torch::randn({32, 3, 32, 32});
  auto iteration = [&] {
    model->zero_grad();
    model->forward(images).sum().backward();
  };
  iteration();
  iteration();
  const long before = minor_faults();
  for (int i = 0; i < 3; ++i) iteration();
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

TEST(Allocator, TrainingIterationsStopFaultingTheirMemoryIn) {
  unset_malloc_environment();
  const long by_default = faults_per_iteration();
  keep_freed_memory();
  EXPECT_EQ(allocator_settings(), "keep freed memory (mmap and trim thresholds 1 GiB)");
  const long kept = faults_per_iteration();
  EXPECT_LT(kept, by_default / 10 + 1) << "by default: " << by_default;
  // By glibc's defaults, large activations are mapped afresh, or the heap top trimmed, in
  // every iteration.
  if (!huge_pages_always()) {
    EXPECT_GT(by_default, 1000) << "kept: " << kept;
  }
}

TEST(Allocator, LeavesMallocToTheEnvironmentWhenItSaysAnything) {
  unset_malloc_environment();
  setenv("GLIBC_TUNABLES", "", 1);
  keep_freed_memory();
  EXPECT_EQ(allocator_settings(), "environment (GLIBC_TUNABLES=)");
  unsetenv("GLIBC_TUNABLES");
}

}  // namespace
}  // namespace dtbench
