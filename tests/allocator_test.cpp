// keep_freed_memory() changes where glibc takes a large block from and whether it gives freed
// memory back. Both are visible in mallinfo2(), deterministically: hblkhd counts the bytes in
// blocks mapped on their own (mmap), arena the bytes of the heap, fordblks its free bytes. What
// the setting is worth (page faults and time per iteration) depends on the kernel, the
// hypervisor and transparent huge pages, so it is measured, not asserted: the run record keeps
// each iteration's minor faults and the report's allocator section compares the two settings.
// The settings are per process and cannot be undone: ctest runs each test in its own process,
// and the glibc test skips itself when an earlier test in the same process applied them.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include "common/allocator.h"

namespace dtbench {
namespace {

// Above glibc's largest dynamic mmap threshold (32 MiB on 64-bit), so by glibc's defaults it
// is always a mapping of its own.
constexpr size_t kBlock = size_t{64} << 20;

void* volatile g_block = nullptr;  // volatile: the compiler may not drop the malloc/free pair

bool environment_sets_malloc() {
  for (const char* name : {"GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

struct BlockTrace {
  struct mallinfo2 before, during, after;
};

BlockTrace allocate_and_free_a_block() {
  BlockTrace t;
  t.before = mallinfo2();
  g_block = std::malloc(kBlock);
  std::memset(g_block, 1, 4096);
  t.during = mallinfo2();
  std::free(g_block);
  t.after = mallinfo2();
  return t;
}

TEST(Allocator, GlibcDefaultsMapALargeBlockAndUnmapItWhenFreed) {
  if (environment_sets_malloc() || allocator_settings() != "glibc default") {
    GTEST_SKIP() << "malloc is not at glibc's defaults in this process";
  }
  BlockTrace t = allocate_and_free_a_block();
  EXPECT_GE(t.during.hblkhd, t.before.hblkhd + kBlock);
  EXPECT_EQ(t.after.hblkhd, t.before.hblkhd);
}

TEST(Allocator, KeepFreedMemoryServesALargeBlockFromTheHeapAndKeepsIt) {
  if (environment_sets_malloc()) GTEST_SKIP() << "the environment sets malloc's parameters";
  keep_freed_memory();
  EXPECT_EQ(allocator_settings(), "keep freed memory (mmap and trim thresholds 1 GiB)");
  BlockTrace t = allocate_and_free_a_block();
  EXPECT_EQ(t.during.hblkhd, t.before.hblkhd) << "the block was mapped on its own";
  EXPECT_GE(t.during.arena, t.before.arena);
  EXPECT_EQ(t.after.arena, t.during.arena) << "the heap was trimmed";
  EXPECT_GE(t.after.fordblks, kBlock) << "the freed block is not kept for reuse";
}

TEST(Allocator, LeavesMallocToTheEnvironmentWhenItSaysAnything) {
  for (const char* name : {"GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"}) {
    unsetenv(name);
  }
  setenv("GLIBC_TUNABLES", "", 1);
  keep_freed_memory();
  EXPECT_EQ(allocator_settings(), "environment (GLIBC_TUNABLES=)");
  unsetenv("GLIBC_TUNABLES");
}

}  // namespace
}  // namespace dtbench
