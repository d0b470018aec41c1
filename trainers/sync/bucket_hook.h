#pragma once
// A communication hook on one flat bucket, as PyTorch DDP's register_comm_hook: the bucketed
// engine (bucketed.h) packs the gradients into buckets and hands each bucket to the hook, in
// bucket order, the same on every rank; the hook communicates and leaves in the buffer what is
// to be applied. The compressing strategies are hooks (docs/compression.md).
#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include "comm/communicator.h"
#include "sync/grad_sync.h"

namespace dtbench {

struct GradBucket {
  size_t index = 0;               // its place in launch order
  at::Tensor buffer;              // flat, the bucket's gradients one after another
  std::vector<at::Tensor> grads;  // views into buffer, each in its parameter's shape
};

class BucketHook {
 public:
  virtual ~BucketHook() = default;
  // On return buffer holds the aggregate to apply: mean or sum over ranks as the options say,
  // or the hook's approximation of it. Called from the communication thread in overlap mode.
  virtual void run(GradBucket& bucket, Communicator& comm) = 0;
  // After every bucket of an iteration has run (PowerSGD counts iterations).
  virtual void end_iteration() {}
};

// The bucketed engine with a hook in place of its own iallreduce. Buckets are cut once, by size
// (plan_buckets): a hook's per-bucket state must not see its buckets change.
std::unique_ptr<GradSync> make_hooked_bucket_sync(std::unique_ptr<BucketHook> hook,
                                                  const SyncOptions& options);

}  // namespace dtbench
