#include "report/predict/pair_sweeps.h"

#include <cmath>

#include "report/predict/model_inputs.h"

namespace dtbench {
namespace {

// The pairs of one sweep, each split as the benchmark splits its vector of floats: the first
// 1/parts of its elements, then the rest; the sizes read go to `read`.
std::vector<model::PairTime> pairs_of(const model::MeasuredCost& pair,
                                      const model::MeasuredCost& one, int ranks, int parts,
                                      const model::Link& link, std::vector<double>& read) {
  std::vector<model::PairTime> out;
  const auto wire = [&](double bytes) {
    return model::ring_link_bytes(ranks, bytes) / link.bytes_per_s;
  };
  for (size_t i = 0; i < pair.bytes.size(); ++i) {
    const double first = 4 * std::floor(pair.bytes[i] / 4 / parts);
    const double second = pair.bytes[i] - first;
    if (first < one.bytes.front() || second > one.bytes.back()) continue;
    out.push_back({one.time(first), wire(first), one.time(second), wire(second), pair.seconds[i]});
    read.push_back(pair.bytes[i]);
  }
  return out;
}

}  // namespace

InFlightFit in_flight_fit(const SystemResults& s, const std::string& backend, int ranks,
                          const model::Link& link) {
  const model::MeasuredCost one = sweep_of(s, "iallreduce", backend, ranks);
  InFlightFit out;
  if (one.bytes.size() < 2 || !(link.bytes_per_s > 0)) return out;
  const std::vector<model::PairTime> even =
      pairs_of(sweep_of(s, "iallreduce_pair", backend, ranks), one, ranks, 2, link, out.bytes);
  const std::vector<model::PairTime> uneven = pairs_of(
      sweep_of(s, "iallreduce_uneven", backend, ranks), one, ranks, 8, link, out.uneven_bytes);
  out.shares = model::fitted_in_flight_shares(even, uneven);
  return out;
}

}  // namespace dtbench
