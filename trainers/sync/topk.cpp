// topk: per bucket, the k = ceil(fraction * elements) entries of largest magnitude, with error
// feedback: what a rank did not send is added to its next gradient, so every entry is sent
// eventually. Each rank's k (index, value) pairs go to every rank by two allgathers (int32
// indices, float32 values), and each rank adds them up in rank order into a zero bucket, so all
// ranks hold bit-identical sums. Payload per rank and bucket: 8k bytes handed over, 8k(n-1)
// received; dense allreduce hands over 4 x elements.
#include <ATen/ATen.h>

#include <limits>
#include <map>

#include "catalogue/compression_rules.h"
#include "common/error.h"
#include "sync/compression.h"

namespace dtbench {
namespace {

class TopkHook : public BucketHook {
 public:
  explicit TopkHook(const SyncOptions& options)
      : mean_(options.aggregate == Aggregate::mean), fraction_(options.topk_fraction) {
    require(fraction_ > 0 && fraction_ <= 1, "--topk-fraction must be in (0, 1]");
  }

  void run(GradBucket& bucket, Communicator& comm) override {
    at::Tensor& buffer = bucket.buffer;
    const int64_t elements = buffer.numel();
    if (elements == 0) return;
    require(elements <= std::numeric_limits<int32_t>::max(),
            "topk: a bucket of more than 2^31 elements (use a smaller --bucket-mb)");
    at::Tensor& error = errors_[bucket.index];
    if (error.defined()) buffer.add_(error);
    const int64_t k = topk_count(fraction_, elements);
    at::Tensor indices = std::get<1>(at::topk(buffer.abs(), k, 0, /*largest=*/true,
                                              /*sorted=*/false));
    at::Tensor values = buffer.index_select(0, indices);
    error = buffer.index_fill(0, indices, 0);  // what stays behind for the next step

    const int n = comm.size();
    at::Tensor all_indices = at::empty({n * k}, at::kInt);
    at::Tensor all_values = at::empty({n * k}, buffer.options());
    comm.allgather(indices.to(at::kInt), all_indices);
    comm.allgather(values, all_values);
    buffer.zero_();
    for (int r = 0; r < n; ++r) {
      buffer.index_add_(0, all_indices.narrow(0, r * k, k).to(at::kLong),
                        all_values.narrow(0, r * k, k));
    }
    if (mean_) buffer.div_(n);
  }

 private:
  bool mean_;
  double fraction_;
  std::map<size_t, at::Tensor> errors_;
};

}  // namespace

std::unique_ptr<BucketHook> make_topk_hook(const SyncOptions& options) {
  return std::make_unique<TopkHook>(options);
}

}  // namespace dtbench
