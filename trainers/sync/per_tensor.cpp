#include "sync/per_tensor.h"

#include "common/comm_worker.h"
#include "sync/gradient_hooks.h"

namespace dtbench {
namespace {

class PerTensorSync : public GradSync {
 public:
  PerTensorSync(TensorSum sum, const SyncOptions& options)
      : sum_(std::move(sum)), options_(options) {}

  void setup(const std::vector<at::Tensor>& params, Communicator& comm) override {
    params_ = params;
    comm_ = &comm;
    scale_ = options_.aggregate == Aggregate::mean ? 1.0 / comm.size() : 1.0;
    in_flight_.resize(params.size());
    ready_.resize(params.size());
    if (options_.mode == SyncMode::blocking) return;
    worker_ = std::make_unique<CommWorker>();
    if (options_.mode != SyncMode::overlap) return;
    // Each parameter gets exactly one gradient per backward in these models.
    hooks_.add(params_, [this](size_t i, const at::Tensor& grad) { launch(i, grad); });
  }

  bool finish() override {
    switch (options_.mode) {
      case SyncMode::blocking:
        for (auto& p : params_) {
          at::Tensor grad = p.mutable_grad();
          if (grad.numel() == 0) continue;  // nothing to move
          sum_(grad, *comm_);
          if (scale_ != 1.0) grad.mul_(scale_);
        }
        return true;
      case SyncMode::overlap:
        worker_->wait_idle();
        apply(in_flight_);
        return true;
      case SyncMode::stale:
        break;
    }
    const bool have_previous = stale_ == Stale::in_flight;
    if (have_previous) {
      worker_->wait_idle();  // the previous step's sums are complete
      std::swap(ready_, in_flight_);
    }
    for (size_t i = 0; i < params_.size(); ++i) hold(i, params_[i].grad());
    stale_ = Stale::held;
    if (have_previous) apply(ready_);
    return have_previous;
  }

  // Stale: the previous step's gradients go out as this step begins, so that their sums are in
  // flight only inside timed iterations (forward and backward), never in the trainer's own
  // exchange between two iterations, which would wait behind them.
  void before_forward() override {
    if (stale_ != Stale::held) return;
    for (size_t i = 0; i < params_.size(); ++i) submit(i);
    stale_ = Stale::in_flight;
  }

 private:
  void launch(size_t i, const at::Tensor& grad) {
    hold(i, grad);
    submit(i);
  }
  void hold(size_t i, const at::Tensor& grad) {
    in_flight_[i] = grad.detach().contiguous().clone();
  }
  void submit(size_t i) {
    if (in_flight_[i].numel() == 0) return;  // nothing to move
    worker_->submit([this, i] { sum_(in_flight_[i], *comm_); });
  }

  void apply(const std::vector<at::Tensor>& sums) {
    for (size_t i = 0; i < params_.size(); ++i) {
      at::Tensor grad = params_[i].mutable_grad();
      grad.copy_(sums[i].view_as(grad));
      if (scale_ != 1.0) grad.mul_(scale_);
    }
  }

  TensorSum sum_;
  SyncOptions options_;
  std::vector<at::Tensor> params_, in_flight_, ready_;
  Communicator* comm_ = nullptr;
  double scale_ = 1.0;
  // Stale: nothing yet; this step's gradients copied, to go out as the next begins; the previous
  // step's sums in flight.
  enum class Stale { none, held, in_flight } stale_ = Stale::none;
  std::unique_ptr<CommWorker> worker_;  // joined before the buffers it uses go away
  GradientHooks hooks_;                 // last: removed before the worker they feed goes away
};

}  // namespace

std::unique_ptr<GradSync> make_per_tensor_sync(TensorSum sum, const SyncOptions& options) {
  return std::make_unique<PerTensorSync>(std::move(sum), options);
}

}  // namespace dtbench
