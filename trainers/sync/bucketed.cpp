#include "sync/bucketed.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "common/comm_worker.h"
#include "plan/bucket_plan.h"
#include "sync/bucket_hook.h"
#include "sync/gradient_hooks.h"

namespace dtbench {
namespace {

struct Bucket {
  GradBucket flat;               // the buffer and its views, as a hook sees them
  std::vector<size_t> params;    // indices into the parameter list
  std::vector<int64_t> offsets;  // where each lives in buffer
  size_t arrived = 0;
  std::unique_ptr<Request> request;  // without a hook
};

struct Slot {
  size_t bucket = 0;
  size_t member = 0;  // index into the bucket's params and offsets
};

class BucketedSync : public GradSync {
 public:
  BucketedSync(std::unique_ptr<BucketHook> hook, const SyncOptions& options)
      : options_(options), hook_(std::move(hook)) {}

  void setup(const std::vector<at::Tensor>& params, Communicator& comm) override {
    params_ = params;
    comm_ = &comm;
    scale_ = options_.aggregate == Aggregate::mean ? 1.0 / comm.size() : 1.0;
    for (size_t i = params_.size(); i-- > 0;) bytes_.push_back(params_[i].nbytes());
    cap_ = options_.bucket_bytes();
    assign_buckets(plan_buckets(bytes_, cap_, std::min(cap_, kFirstBucketBytes)));
    if (options_.mode != SyncMode::overlap) return;
    if (hook_) worker_ = std::make_unique<CommWorker>();
    hooks_.add(params_, [this](size_t i, const at::Tensor& grad) { on_gradient(i, grad); });
  }

  // Without a hook the gradients are views of the buckets after finish() (DDP's
  // gradient_as_bucket_view). Here they go: backward then makes fresh ones, where it would
  // otherwise add each new gradient into the bucket that pack() has just filled with it.
  void before_forward() override {
    if (hook_) return;
    for (auto& p : params_) p.mutable_grad().reset();
  }

  bool finish() override {
    if (options_.mode == SyncMode::blocking) {
      for (size_t i = 0; i < params_.size(); ++i) pack(i, params_[i].grad());
      for (auto& bucket : buckets_) {
        if (hook_) {
          hook_->run(bucket.flat, *comm_);
        } else {
          comm_->allreduce(bucket.flat.buffer);
        }
      }
    } else {
      launch_full_buckets();
      // A bucket still waiting (a parameter unused in this step's graph) goes as it is.
      while (next_ < buckets_.size()) launch(next_++);
      if (worker_) worker_->wait_idle();
      for (auto& bucket : buckets_) {
        if (bucket.request) bucket.request->wait();
      }
    }
    if (hook_) hook_->end_iteration();
    unpack_all();
    return true;
  }

  // A hook's own cost is not the allreduce the timeline measures: hooked buckets keep their
  // first cut.
  bool plans_from_timeline() const override {
    return !hook_ && options_.mode == SyncMode::overlap && comm_->size() > 1;
  }

  void plan(const Timeline& timeline) override {
    if (timeline.bytes_per_s <= 0 || timeline.ready_s.size() != params_.size()) return;
    std::vector<double> ready;  // in backward's order, as bytes_
    for (size_t i = params_.size(); i-- > 0;) ready.push_back(timeline.ready_s[i]);
    // The probe's cost, measured alone. While backward runs, communication may move slower
    // (on a machine whose cores backward keeps busy): the plan's tie-break (kSlowLinkShares)
    // keeps slack for that.
    assign_buckets(
        plan_timed_buckets(bytes_, ready, {timeline.latency_s, timeline.bytes_per_s}, cap_));
  }

  std::vector<int64_t> bucket_bytes() const override {
    std::vector<int64_t> sizes;
    for (const auto& bucket : buckets_) sizes.push_back(bucket.flat.buffer.nbytes());
    return sizes;
  }

 private:
  // `plan` holds positions in backward's order, as bytes_.
  void assign_buckets(const BucketPlan& plan) {
    buckets_.clear();
    slots_.assign(params_.size(), Slot{});
    for (const auto& members : plan) {
      Bucket bucket;
      int64_t elements = 0;
      for (size_t position : members) {
        const size_t param = params_.size() - 1 - position;
        slots_[param] = {buckets_.size(), bucket.params.size()};
        bucket.params.push_back(param);
        bucket.offsets.push_back(elements);
        elements += params_[param].numel();
      }
      bucket.flat.index = buckets_.size();
      bucket.flat.buffer = at::zeros({elements}, params_[0].options().requires_grad(false));
      for (size_t k = 0; k < bucket.params.size(); ++k) {
        const at::Tensor& p = params_[bucket.params[k]];
        bucket.flat.grads.push_back(
            bucket.flat.buffer.narrow(0, bucket.offsets[k], p.numel()).view(p.sizes()));
      }
      buckets_.push_back(std::move(bucket));
    }
  }

  // Into the bucket, scaled there for a mean (as DDP divides before its allreduce) unless a
  // hook aggregates as the options say.
  void pack(size_t param, const at::Tensor& grad) {
    const Slot slot = slots_[param];
    at::Tensor& view = buckets_[slot.bucket].flat.grads[slot.member];
    if (scale_ != 1.0 && !hook_) {
      at::mul_out(view, grad, scale_);  // copy and scale in one pass
    } else {
      view.copy_(grad);
    }
  }

  void on_gradient(size_t param, const at::Tensor& grad) {
    pack(param, grad);
    ++buckets_[slots_[param].bucket].arrived;
    launch_full_buckets();
  }

  void launch_full_buckets() {
    while (next_ < buckets_.size() && buckets_[next_].arrived == buckets_[next_].params.size()) {
      launch(next_++);
    }
  }

  void launch(size_t b) {
    Bucket& bucket = buckets_[b];
    if (hook_) {
      worker_->submit([this, b] { hook_->run(buckets_[b].flat, *comm_); });
    } else {
      bucket.request = comm_->iallreduce(bucket.flat.buffer);
    }
  }

  // Hands each parameter its aggregate: without a hook the gradient becomes its view of the
  // bucket, no copy (before_forward lets go of it); with a hook they are copied out, as
  // before, which leaves what the hooks do with their buckets as it was.
  void unpack_all() {
    for (auto& bucket : buckets_) {
      for (size_t k = 0; k < bucket.params.size(); ++k) {
        at::Tensor& grad = params_[bucket.params[k]].mutable_grad();
        if (hook_) {
          grad.view({-1}).copy_(bucket.flat.buffer.narrow(0, bucket.offsets[k], grad.numel()));
        } else {
          grad = bucket.flat.grads[k];
        }
      }
      bucket.arrived = 0;
      bucket.request.reset();
    }
    next_ = 0;
  }

  SyncOptions options_;
  std::vector<at::Tensor> params_;
  std::vector<int64_t> bytes_;  // each parameter's size, in backward's order
  int64_t cap_ = 0;
  Communicator* comm_ = nullptr;
  double scale_ = 1.0;
  std::vector<Bucket> buckets_;
  std::vector<Slot> slots_;             // per parameter, in model order
  size_t next_ = 0;                     // the first bucket not yet launched
  std::unique_ptr<BucketHook> hook_;    // none: the engine's own iallreduce
  std::unique_ptr<CommWorker> worker_;  // runs the hook in overlap mode; joined before buckets_
  GradientHooks hooks_;                 // last: removed before what they touch goes away
};

}  // namespace

std::unique_ptr<GradSync> make_bucketed_sync(const SyncOptions& options) {
  return std::make_unique<BucketedSync>(nullptr, options);
}

std::unique_ptr<GradSync> make_hooked_bucket_sync(std::unique_ptr<BucketHook> hook,
                                                  const SyncOptions& options) {
  return std::make_unique<BucketedSync>(std::move(hook), options);
}

}  // namespace dtbench
