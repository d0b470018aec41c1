#pragma once
#include <memory>

#include "sync/grad_sync.h"

namespace dtbench {

// The real PyTorch DDP engine: libtorch's c10d::Reducer over the Gloo communicator's
// c10d::ProcessGroupGloo, driven as torch.nn.parallel.DistributedDataParallel drives it in
// 1.13 and 2.6 (there through a ProcessGroup holding it: comm/c10d_adapter.h): buckets from
// compute_bucket_assignment_by_size (1 MiB first bucket, then --bucket-mb, in reverse parameter
// order), prepare_for_forward and rebuild_buckets before every forward, prepare_for_backward after
// it. The Reducer averages inside backward (its final autograd callback waits for the buckets), so
// finish() has nothing left to wait for.
std::unique_ptr<GradSync> make_c10d_ddp_sync(const SyncOptions& options);

}  // namespace dtbench
