#include "sync/bucketed.h"

#include <algorithm>
#include <vector>

namespace dtbench {
namespace {

constexpr int64_t kFirstBucketBytes = 1024 * 1024;  // DDP's _DEFAULT_FIRST_BUCKET_BYTES

struct Bucket {
  at::Tensor buffer;
  std::vector<size_t> params;    // indices into the parameter list
  std::vector<int64_t> offsets;  // where each lives in buffer
  size_t arrived = 0;
  std::unique_ptr<Request> request;
};

class BucketedSync : public GradSync {
 public:
  explicit BucketedSync(const SyncOptions& options) : options_(options) {}

  void setup(const std::vector<at::Tensor>& params, Communicator& comm) override {
    params_ = params;
    comm_ = &comm;
    scale_ = options_.aggregate == Aggregate::mean ? 1.0 / comm.size() : 1.0;
    assign_buckets();
    if (options_.mode != SyncMode::overlap) return;
    for (size_t b = 0; b < buckets_.size(); ++b) {
      for (size_t k = 0; k < buckets_[b].params.size(); ++k) {
        params_[buckets_[b].params[k]].register_hook(
            [this, b, k](const at::Tensor& grad) { on_gradient(b, k, grad); });
      }
    }
  }

  bool finish() override {
    if (options_.mode == SyncMode::blocking) {
      for (size_t b = 0; b < buckets_.size(); ++b) {
        for (size_t k = 0; k < buckets_[b].params.size(); ++k) {
          pack(b, k, params_[buckets_[b].params[k]].grad());
        }
        comm_->allreduce(buckets_[b].buffer);
      }
    } else {
      launch_full_buckets();
      for (auto& bucket : buckets_) {
        // A bucket still waiting (a parameter unused in this step's graph) goes as it is.
        if (!bucket.request) bucket.request = comm_->iallreduce(bucket.buffer);
      }
      for (auto& bucket : buckets_) bucket.request->wait();
    }
    unpack_all();
    return true;
  }

 private:
  void assign_buckets() {
    std::vector<int64_t> bytes;  // in the order backward produces the gradients
    for (size_t i = params_.size(); i-- > 0;) bytes.push_back(params_[i].numel() * 4);
    const auto cap = static_cast<int64_t>(options_.bucket_mb * 1024 * 1024);
    for (const auto& members : plan_buckets(bytes, cap, std::min(cap, kFirstBucketBytes))) {
      Bucket bucket;
      int64_t floats = 0;
      for (size_t position : members) {
        bucket.params.push_back(params_.size() - 1 - position);
        bucket.offsets.push_back(floats);
        floats += bytes[position] / 4;
      }
      bucket.buffer = at::zeros({floats}, params_[0].options().requires_grad(false));
      buckets_.push_back(std::move(bucket));
    }
  }

  void pack(size_t b, size_t k, const at::Tensor& grad) {
    Bucket& bucket = buckets_[b];
    bucket.buffer.narrow(0, bucket.offsets[k], grad.numel()).copy_(grad.reshape({-1}));
  }

  void on_gradient(size_t b, size_t k, const at::Tensor& grad) {
    pack(b, k, grad);
    ++buckets_[b].arrived;
    launch_full_buckets();
    // OpenMPI moves nonblocking collectives only inside MPI calls: poke the ones in flight.
    for (size_t i = 0; i < next_; ++i) buckets_[i].request->test();
  }

  void launch_full_buckets() {
    while (next_ < buckets_.size() && buckets_[next_].arrived == buckets_[next_].params.size()) {
      buckets_[next_].request = comm_->iallreduce(buckets_[next_].buffer);
      ++next_;
    }
  }

  void unpack_all() {
    for (auto& bucket : buckets_) {
      for (size_t k = 0; k < bucket.params.size(); ++k) {
        at::Tensor grad = params_[bucket.params[k]].mutable_grad();
        grad.view({-1}).copy_(bucket.buffer.narrow(0, bucket.offsets[k], grad.numel()));
        if (scale_ != 1.0) grad.mul_(scale_);
      }
      bucket.arrived = 0;
      bucket.request.reset();
    }
    next_ = 0;
  }

  SyncOptions options_;
  std::vector<at::Tensor> params_;
  Communicator* comm_ = nullptr;
  double scale_ = 1.0;
  std::vector<Bucket> buckets_;
  size_t next_ = 0;  // the first bucket not yet launched
};

}  // namespace

std::vector<std::vector<size_t>> plan_buckets(const std::vector<int64_t>& bytes, int64_t cap,
                                              int64_t first_cap) {
  std::vector<std::vector<size_t>> buckets;
  int64_t rest = 0;
  for (int64_t b : bytes) rest += b;
  int64_t target = first_cap;
  int64_t filled = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (filled == 0) buckets.emplace_back();
    buckets.back().push_back(i);
    filled += bytes[i];
    rest -= bytes[i];
    if (filled >= target && rest > 0) {
      const int64_t k = (rest + cap - 1) / cap;
      target = (rest + k - 1) / k;
      filled = 0;
    }
  }
  return buckets;
}

std::unique_ptr<GradSync> make_bucketed_sync(const SyncOptions& options) {
  return std::make_unique<BucketedSync>(options);
}

}  // namespace dtbench
