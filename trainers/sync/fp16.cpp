// fp16: as PyTorch's fp16_compress_hook (1.13 and 2.6 alike), per bucket: cast to float16, divide
// by the world size (mean; before the sum, so that it does not overflow), allreduce in float16,
// cast back. Over MPI, which has no float16 sum, the Communicator sums halves with an operation of
// its own (docs/communicators.md). Payload: half of allreduce's.
#include "sync/compression.h"

namespace dtbench {
namespace {

class Fp16Hook : public BucketHook {
 public:
  explicit Fp16Hook(Aggregate aggregate) : aggregate_(aggregate) {}

  void run(GradBucket& bucket, Communicator& comm) override {
    at::Tensor half = bucket.buffer.to(at::kHalf);
    if (aggregate_ == Aggregate::mean) half.div_(comm.size());
    comm.allreduce(half);
    bucket.buffer.copy_(half);
  }

 private:
  Aggregate aggregate_;
};

}  // namespace

std::unique_ptr<BucketHook> make_fp16_hook(const SyncOptions& options) {
  return std::make_unique<Fp16Hook>(options.aggregate);
}

}  // namespace dtbench
