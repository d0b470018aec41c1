#pragma once
// The Timeline a strategy may plan from (grad_sync.h), measured here because the trainer is
// where time is measured.
#include <ATen/core/Tensor.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "comm/communicator.h"
#include "sync/grad_sync.h"
#include "sync/gradient_hooks.h"

namespace dtbench {

// Records when each parameter's gradient arrives (its autograd hook fires), in seconds since
// start(). Hooks are registered on construction and removed on destruction.
class GradientClock {
 public:
  explicit GradientClock(std::vector<at::Tensor> params);

  void start();  // just before backward; forgets earlier arrivals
  // Per parameter in model order; -1 for a gradient that has not arrived since start().
  const std::vector<double>& ready_s() const { return ready_s_; }

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<double> ready_s_;
  Clock::time_point start_;
  GradientHooks hooks_;  // last: removed before what they write goes away
};

// Collective: times nonblocking allreduces (iallreduce, then wait: what bucketed's buckets run)
// of one float and of `bytes` over comm (a warm-up, then the median of three, each after a
// barrier, the slowest rank's time) and fits
// latency_s + bytes / bytes_per_s. bytes_per_s is 0 when the two times do not allow a fit.
// Its bytes count as comm's traffic: call it outside any measured region.
void measure_allreduce_cost(Communicator& comm, int64_t bytes, Timeline& out);

}  // namespace dtbench
