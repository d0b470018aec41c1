#pragma once
// What a second operation in flight costs, from the sweep of pairs (bench_collectives'
// iallreduce_pair: a vector's two halves, each a nonblocking allreduce, launched together)
// against the nonblocking allreduce's sweep at half the size: the share of an operation's latency
// that waits for the other's, as the in-flight rule takes it (model::InFlight::latency_share).
#include <string>
#include <vector>

#include "model/cost_model.h"
#include "report/read/results.h"

namespace dtbench {

struct InFlightFit {
  double latency_share = 1;
  std::vector<double> bytes;  // the pair sweep's sizes it was fitted to (whole vectors)
  bool found() const { return !bytes.empty(); }
};

// On `backend` and these ranks, through `link` (each half's bytes on the wire as a ring's):
// fitted to every size of the pair sweep whose half the iallreduce sweep spans, both as
// model_inputs' sweep_of reads them; none where either was not swept.
InFlightFit in_flight_fit(const SystemResults& s, const std::string& backend, int ranks,
                          const model::Link& link);

}  // namespace dtbench
