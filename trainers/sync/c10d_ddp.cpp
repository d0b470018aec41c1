#include "sync/c10d_ddp.h"

#include <torch/csrc/distributed/c10d/comm.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>

#include "comm/gloo_communicator.h"
#include "common/error.h"

namespace dtbench {
namespace {

// DDP's built-in ALLREDUCE comm hook (the bucket summed over the process group, then divided by
// its size: what the Reducer does without a hook, the division there fused into its copy-back),
// which also records each bucket's allreduce in the trace as a nonblocking operation, from its
// launch until Gloo completed it. Registered only on traced runs: the Reducer calls Gloo itself,
// so no Communicator call would show its operations otherwise.
// (From CommHookInterface, not CppCommHookInterface: Debian's libtorch does not export the
// latter's result parser.)
class TracedAllreduceHook : public c10d::CommHookInterface {
 public:
  TracedAllreduceHook(c10::intrusive_ptr<c10d::ProcessGroup> group, std::shared_ptr<TraceLog> log)
      : state_(std::move(group)), log_(std::move(log)) {}

  at::Tensor parseHookResult(const c10::IValue& result) override {
    return result.isTensor() ? result.toTensor() : result.toTensorVector().at(0);
  }

  c10::intrusive_ptr<c10::ivalue::Future> runHook(c10d::GradBucket& bucket) override {
    const auto begin = TraceLog::Clock::now();
    const bool recording = log_->recording();  // as the Communicator's: decided at launch
    std::vector<at::Tensor> tensors = {bucket.getBufferRef()};
    auto work = state_->allreduce(tensors);
    const int ranks = state_->getSize();
    const int64_t bytes = tensors[0].numel() * static_cast<int64_t>(tensors[0].element_size());
    auto done = [ranks, bytes, begin, recording, log = log_](c10::ivalue::Future& summed) {
      if (recording) {
        log->async_span("iallreduce", "comm", begin, TraceLog::Clock::now(),
                        {{"bytes", bytes}, {"ranks", ranks}});
      }
      return c10::IValue(summed.value().toTensorVector().at(0) / ranks);
    };
    auto future = work->getFuture();
    return future->then(done, future->elementType());
  }

 private:
  c10::intrusive_ptr<c10d::ProcessGroup> state_;
  std::shared_ptr<TraceLog> log_;
};

class C10dDdpSync : public GradSync {
 public:
  explicit C10dDdpSync(const SyncOptions& options) : options_(options) {}

  void setup(const std::vector<at::Tensor>& params, Communicator& comm) override {
    auto group = gloo_process_group(comm);
    require(group.defined(),
            "sync strategy c10d_ddp runs over c10d::ProcessGroupGloo: use "
            "--backend gloo");
    require(options_.aggregate == Aggregate::mean,
            "sync strategy c10d_ddp always averages (as PyTorch DDP does): use --aggregate mean");
    comm_ = &comm;
    const int64_t cap = options_.bucket_bytes();
    std::vector<bool> dense(params.size(), false);
    auto [buckets, limits] = c10d::compute_bucket_assignment_by_size(
        params, {static_cast<size_t>(kFirstBucketBytes), static_cast<size_t>(cap)}, dense);
    // As DDP: gradients become ready roughly in reverse order, so buckets go last-to-first.
    std::reverse(buckets.begin(), buckets.end());
    std::reverse(limits.begin(), limits.end());
    std::unordered_map<size_t, std::string> names;
    for (size_t i = 0; i < params.size(); ++i) names[i] = "p" + std::to_string(i);
    reducer_ = std::make_unique<c10d::Reducer>(params, buckets, limits, group, dense, cap,
                                               /*find_unused_parameters=*/false,
                                               /*gradient_as_bucket_view=*/false, names,
                                               kFirstBucketBytes);
    if (auto log = comm.trace_log()) {
      reducer_->register_comm_hook(std::make_unique<TracedAllreduceHook>(group, std::move(log)));
    }
    for (const auto& p : params) gradient_bytes_ += p.numel() * p.element_size();
  }

  void before_forward() override {
    reducer_->prepare_for_forward();
    reducer_->rebuild_buckets();  // a no-op except once, after the first backward
  }

  void before_backward(const at::Tensor& /*loss*/) override {
    reducer_->prepare_for_backward({});  // find_unused_parameters is off: no outputs needed
  }

  bool finish() override {
    // The Reducer allreduced every gradient once inside backward; the Communicator never saw
    // those calls, so account for them here (the same definition as allreduce's).
    if (comm_->size() > 1) comm_->count_payload(gradient_bytes_, gradient_bytes_);
    return true;
  }

 private:
  SyncOptions options_;
  Communicator* comm_ = nullptr;
  int64_t gradient_bytes_ = 0;
  std::unique_ptr<c10d::Reducer> reducer_;
};

}  // namespace

std::unique_ptr<GradSync> make_c10d_ddp_sync(const SyncOptions& options) {
  return std::make_unique<C10dDdpSync>(options);
}

}  // namespace dtbench
