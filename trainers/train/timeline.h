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

// The latency probe's floats per rank. Gloo's nonblocking allreduce of a float or a few is not
// what a bucket pays: on 4 ranks of the EPYC VM on its own (results/reference/
// study-local-epyc-vm) 1 float took 1.83 ms, 4 floats 3.28 ms, and every size from 16 floats to
// 1 MiB 4.40-5.17 ms; on 8 hosts at 100 Mbit/s (extrapolation-netns-8-100mbit-epyc-vm-frag8k)
// 1 float 2.70 ms, 16 floats to 64 KiB 12.51-13.45 ms. Over MPI the sizes took alike. Sixteen
// floats a rank are past that, and take no longer to move than the latency.
constexpr int64_t kLatencyProbeElementsPerRank = 16;

// Collective: times nonblocking allreduces (iallreduce, then wait: what bucketed's buckets run)
// of kLatencyProbeElementsPerRank floats a rank and of `bytes` over comm (a warm-up, then the
// median of three, each after a barrier, the slowest rank's time) and fits
// latency_s + bytes / bytes_per_s. bytes_per_s is 0 when the two times do not allow a fit.
// Its bytes count as comm's traffic: call it outside any measured region.
void measure_allreduce_cost(Communicator& comm, int64_t bytes, Timeline& out);

}  // namespace dtbench
