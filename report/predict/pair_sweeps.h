#pragma once
// What a second operation in flight costs, from the sweeps of pairs launched together
// (bench_collectives' iallreduce_pair: a vector's two halves; iallreduce_uneven: its first eighth
// and the rest, each a nonblocking allreduce) against the nonblocking allreduce's sweep at each
// part's size: of an operation's latency, the share that waits for the other's and the share that
// goes before its bytes take the link, as the in-flight rule takes them
// (model::InFlight::shares).
#include <string>
#include <vector>

#include "model/cost_model.h"
#include "report/read/results.h"

namespace dtbench {

struct InFlightFit {
  model::InFlightShares shares;
  std::vector<double> bytes;         // the pair sweep's sizes it was fitted to (whole vectors)
  std::vector<double> uneven_bytes;  // the uneven pair sweep's
  bool found() const { return !bytes.empty() || !uneven_bytes.empty(); }
};

// On `backend` and these ranks, through `link` (each part's bytes on the wire as a ring's):
// fitted to every size of the pair sweeps whose parts the iallreduce sweep spans, all as
// model_inputs' sweep_of reads them; none where they were not swept. Without the uneven sweep, of
// a latency all goes before its bytes (model::fitted_in_flight_shares).
InFlightFit in_flight_fit(const SystemResults& s, const std::string& backend, int ranks,
                          const model::Link& link);

}  // namespace dtbench
