#pragma once
#include <memory>

#include "sync/grad_sync.h"

namespace dtbench {

// PyTorch DDP's algorithm, written here, with planned buckets: parameters are packed in reverse
// order (the order backward produces their gradients) into flat buckets of at most bucket_mb
// MiB (bucket_plan.h). In overlap mode each gradient is copied into its bucket from its autograd
// hook, and a bucket whose gradients have all arrived is launched with a nonblocking allreduce
// at once, in bucket order (the same on every rank), while backward goes on computing earlier
// layers; finish() waits for the buckets and copies the sums back. The first iteration runs on
// balanced buckets (plan_buckets); then, as DDP rebuilds its buckets after the first iteration,
// the buckets are re-cut from the trainer's Timeline (plan_timed_buckets). Blocking mode packs
// and allreduces balanced buckets after backward.
std::unique_ptr<GradSync> make_bucketed_sync(const SyncOptions& options);

}  // namespace dtbench
