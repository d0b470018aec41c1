#pragma once
#include <string>

namespace dtbench {

// A training loop frees and allocates the same activation buffers every iteration. With glibc's
// defaults, large buffers come from mmap and freed heap tops go back to the kernel, so each
// iteration faults its memory in again, page by page and zeroed (on VGG-11, 4 of every 5 of a
// run's page faults, about 10% of its iteration time). keep_freed_memory() makes glibc keep
// freed memory for reuse instead: no mmap below 1 GiB, no trimming below 1 GiB free. When the
// environment sets malloc's parameters (GLIBC_TUNABLES, MALLOC_MMAP_THRESHOLD_,
// MALLOC_TRIM_THRESHOLD_; even empty), it leaves them to it: `GLIBC_TUNABLES= cmd` runs with
// glibc's defaults. Call it first thing in main, before large allocations.
void keep_freed_memory();

// The mmap and trim thresholds keep_freed_memory() sets (also what a process that cannot call
// it, like Python, gets through MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_).
inline constexpr int kKeptMemoryThresholdBytes = 1 << 30;

// What keep_freed_memory() did, for the run record: "glibc default", "environment (...)" or
// "keep freed memory (mmap and trim thresholds 1 GiB)".
std::string allocator_settings();

}  // namespace dtbench
