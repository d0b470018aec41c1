#include "train/timeline.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "common/units.h"

namespace dtbench {

GradientClock::GradientClock(std::vector<at::Tensor> params)
    : ready_s_(params.size(), -1.0), start_(Clock::now()) {
  hooks_.add(params, [this](size_t i, const at::Tensor&) {
    ready_s_[i] = std::chrono::duration<double>(Clock::now() - start_).count();
  });
}

void GradientClock::start() {
  std::fill(ready_s_.begin(), ready_s_.end(), -1.0);
  start_ = Clock::now();
}

namespace {

// The slowest rank's median time of three allreduces of t, after one untimed. Each is the
// non-blocking allreduce that bucketed's buckets run (iallreduce, then wait): over MPI it need
// not take the blocking allreduce's algorithm (with one host at 100 Mbit/s, 4 MiB moved at
// 4.8 MB/s by MPI_Allreduce against 7.2 MB/s by the buckets' MPI_Iallreduce).
double allreduce_seconds(Communicator& comm, at::Tensor& t) {
  comm.iallreduce(t)->wait();
  std::vector<double> times;
  for (int rep = 0; rep < 3; ++rep) {
    comm.barrier();
    const auto begin = std::chrono::steady_clock::now();
    comm.iallreduce(t)->wait();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  std::sort(times.begin(), times.end());
  std::vector<double> median = {times[1]};
  max_over_ranks(comm, median);
  return median[0];
}

}  // namespace

void measure_allreduce_cost(Communicator& comm, int64_t bytes, Timeline& out) {
  const int64_t few = kLatencyProbeElementsPerRank * comm.size();
  at::Tensor small_tensor = at::zeros({few}, at::kFloat);
  at::Tensor many = at::zeros({std::max<int64_t>(bytes / kFloatBytes, 2 * few)}, at::kFloat);
  const double small = allreduce_seconds(comm, small_tensor);
  const double large = allreduce_seconds(comm, many);
  out.latency_s = small;
  out.bytes_per_s =
      large > small ? static_cast<double>((many.numel() - few) * kFloatBytes) / (large - small) : 0;
}

}  // namespace dtbench
