// local_sgd: no gradient moves; every rank steps on its own gradient, and every H steps (and at
// the end of each epoch, before the replica check) the parameters are averaged by one allreduce
// of all of them, packed flat, as PyTorch's PeriodicModelAverager does after the optimizer's
// step. Optimizer state (momentum) stays local. With H = 1 and plain or momentum SGD this is
// allreduce's training: the update is linear in the gradient. Payload per rank: S handed over and
// S received every H steps, S / H per iteration on average.
#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "common/error.h"
#include "sync/compression.h"

namespace dtbench {
namespace {

class LocalSgd : public GradSync {
 public:
  explicit LocalSgd(const SyncOptions& options) : period_(options.local_sgd_period) {
    require(period_ >= 1, "--local-sgd-period must be at least 1");
    require(options.aggregate == Aggregate::mean,
            "local_sgd averages parameters: --aggregate sum does not apply");
  }

  void setup(const std::vector<at::Tensor>& params, Communicator& comm) override {
    params_ = params;
    comm_ = &comm;
  }

  bool finish() override { return true; }

  void after_step() override {
    if (++steps_ % period_ == 0) average();
  }

  void settle() override {
    if (steps_ % period_ != 0) average();
  }

 private:
  void average() {
    if (comm_->size() == 1) return;
    at::NoGradGuard no_grad;
    std::vector<at::Tensor> flat;
    for (const auto& p : params_) flat.push_back(p.detach().reshape({-1}));
    at::Tensor packed = at::cat(flat);
    comm_->allreduce(packed);
    packed.div_(comm_->size());
    int64_t at = 0;
    for (auto& p : params_) {
      p.detach().view({-1}).copy_(packed.narrow(0, at, p.numel()));
      at += p.numel();
    }
  }

  int64_t period_;
  int64_t steps_ = 0;
  std::vector<at::Tensor> params_;
  Communicator* comm_ = nullptr;
};

}  // namespace

std::unique_ptr<GradSync> make_local_sgd_sync(const SyncOptions& options) {
  return std::make_unique<LocalSgd>(options);
}

}  // namespace dtbench
