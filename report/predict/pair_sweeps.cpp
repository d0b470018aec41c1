#include "report/predict/pair_sweeps.h"

#include "report/predict/model_inputs.h"

namespace dtbench {

InFlightFit in_flight_fit(const SystemResults& s, const std::string& backend, int ranks,
                          const model::Link& link) {
  const model::MeasuredCost one = sweep_of(s, "iallreduce", backend, ranks);
  const model::MeasuredCost pair = sweep_of(s, "iallreduce_pair", backend, ranks);
  InFlightFit out;
  if (one.bytes.size() < 2 || !(link.bytes_per_s > 0)) return out;
  std::vector<model::PairTime> pairs;
  for (size_t i = 0; i < pair.bytes.size(); ++i) {
    const double half = pair.bytes[i] / 2;
    if (half < one.bytes.front() || half > one.bytes.back()) continue;
    pairs.push_back(
        {one.time(half), model::ring_link_bytes(ranks, half) / link.bytes_per_s, pair.seconds[i]});
    out.bytes.push_back(pair.bytes[i]);
  }
  out.latency_share = model::fitted_latency_share(pairs);
  return out;
}

}  // namespace dtbench
