#pragma once
// What-if beyond this machine (docs/model.md): the iteration model on clusters no one here has,
// n ranks (one per host, each with its own cores) on links of a given rate and latency, for the
// methods of the course. Weak scaling: every rank keeps its batch, so the compute per rank is
// the same at every n and the scaling efficiency is compute / iteration.
#include <cstdint>
#include <string>
#include <vector>

#include "model/iteration_model.h"

namespace dtbench::model {

struct Scenario {
  ComputeProfile compute;  // one rank's: phases, its parameters' bytes and ready times
  std::vector<std::vector<int64_t>> shapes;  // each parameter's: the matrices PowerSGD sends
  std::vector<int> ranks;
  std::vector<double> gbits;  // link rates, Gbit/s
  double latency_s = 0;
  double bucket_cap_bytes = kDefaultBucketMb * kMiB;
};

struct ScalingPoint {
  // gather_scatter, ring_reduce, allreduce (blocking); bucketed, fp16, powersgd, topk (overlap);
  // local_sgd.
  std::string method;
  int ranks = 0;
  double gbit = 0;
  double iteration_s = 0;
  double efficiency = 0;  // compute / iteration
};

// The methods what_if draws, in order.
const std::vector<std::string>& what_if_methods();

std::vector<ScalingPoint> what_if(const Scenario& scenario);

// Ready times when none were measured: backward makes the parameters' gradients from the last
// to the first, each after a share of backward equal to its share of the bytes.
std::vector<double> ready_by_bytes(const std::vector<double>& tensor_bytes, double backward_s);

// A link of `gbit` Gbit/s carrying TCP (payload_bytes_per_s() of common/links.h) with this
// latency.
Link tcp_link(double gbit, double latency_s);

}  // namespace dtbench::model
