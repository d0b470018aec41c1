#pragma once
// Which rank the others wait for, from a run's trace (docs/traces.md): each rank's arrival at
// an iteration's first communication operation (blocking or not: where the ranks' differences
// in compute land; later operations' arrivals carry the protocol's own skew, a ring's pipeline
// or a gather's root), relative to the first rank's; per iteration the rank that arrived last;
// per run the rank last most often, and per iteration how much earlier than it the others
// arrived (their mean): their wait for it. Iterations whose ranks started different numbers of
// operations are left out. The ranks' clocks are aligned as the trace aligns them: from one instant
// read on rank 0's clock, mapped into each rank's by its offset measured at start-up, so
// arrivals are good to the trace's clock_alignment_s (older traces: a barrier's exit skew).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dtbench {

struct Stragglers {
  int ranks = 0;
  int iterations = 0;           // iterations whose operations matched across the ranks
  std::vector<int> last_count;  // per rank: iterations in which it arrived last
  int straggler = -1;           // the rank last most often; -1 without matched iterations
  double others_wait_s = 0;     // per iteration, the others' wait for it (see above)
};

// `events` are a trace's traceEvents.
Stragglers stragglers_of(const nlohmann::json& events);

// "rank 2 arrived last in 39 of 39 iterations; the others waited 0.050 s per iteration for it";
// "" without matched iterations.
std::string stragglers_text(const Stragglers& s);

}  // namespace dtbench
