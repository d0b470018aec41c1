// The tensor suites' main: malloc as dtbench-train sets it (common/allocator.h), freed memory
// kept for reuse. With glibc's defaults every tensor past its mmap threshold is a mapping of its
// own, faulted in page by page each time: VGG-11's gradient checks spent as much time in the
// kernel as in their own code.
#include <gtest/gtest.h>

#include "common/allocator.h"

int main(int argc, char** argv) {
  dtbench::keep_freed_memory();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
