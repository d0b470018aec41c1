#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "sync/grad_sync.h"

namespace dtbench {

// PyTorch DDP's algorithm, written here, with balanced buckets: parameters are packed in reverse
// order (the order backward produces their gradients) into flat buckets of at most bucket_mb
// MiB, the first one of 1 MiB as in DDP. In overlap mode each gradient is copied into its
// bucket from its autograd hook, and a bucket whose gradients have all arrived is launched with
// a nonblocking allreduce at once, in bucket order (the same on every rank), while backward
// goes on computing earlier layers. finish() waits for the buckets and copies the sums back.
// Blocking mode packs and allreduces after backward.
std::unique_ptr<GradSync> make_bucketed_sync(const SyncOptions& options);

// The buckets, as indices into `bytes` (each parameter's size, in the order backward produces
// them). The first bucket closes at first_cap bytes (DDP's 1 MiB). The rest need
// k = ceil(rest / cap) buckets under the cap; where DDP fills each to the cap and leaves the
// remainder last, these close at rest / k, so that no bucket waits for more of backward than
// it must (on VGG-11 at 25 MiB: 9.5, 18.9 and 8.6 MB instead of 9.5, 27.1 and 0.3 MB, whose
// middle bucket could leave only after 86% of backward). A parameter is never split.
std::vector<std::vector<size_t>> plan_buckets(const std::vector<int64_t>& bytes, int64_t cap,
                                              int64_t first_cap);

std::unique_ptr<GradSync> make_bucketed_sync(const SyncOptions& options);

}  // namespace dtbench
