#pragma once
#include <memory>

#include "sync/grad_sync.h"

namespace dtbench {

// PyTorch DDP's algorithm, written here: parameters are packed in reverse order (the order
// backward produces their gradients) into flat buckets of about bucket_mb MiB, the first one
// of 1 MiB as in DDP. In overlap mode
// each gradient is copied into its bucket from its autograd hook, and a bucket whose
// gradients have all arrived is launched with a nonblocking allreduce at once, in bucket order
// (the same on every rank), while backward goes on computing earlier layers. finish() waits
// for the buckets and copies the sums back. Blocking mode packs and allreduces after backward.
std::unique_ptr<GradSync> make_bucketed_sync(const SyncOptions& options);

}  // namespace dtbench
