#pragma once
// Which rank the others wait for, from a run's trace (docs/traces.md), by one measure: each
// rank's compute in each iteration (its data, forward and backward spans within the iteration's
// span; the k-th iteration of every rank is the same step). Per iteration the rank that computed
// longest; per run the rank longest most often, how much longer it computed than each other
// rank (their wait for it: the mean over them and over the iterations), and how much longer the
// longest compute of each iteration was than the ranks' mean (the wait the cost model adds to
// every synchronisation: model/iteration_model.h's straggler_s).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dtbench {

struct Stragglers {
  int ranks = 0;
  int iterations = 0;              // iterations every rank traced
  std::vector<int> longest_count;  // per rank: iterations in which it computed longest
  int straggler = -1;              // the rank longest most often; -1 without two ranks traced
  double others_wait_s = 0;        // per iteration, the others' wait for it (see above)
  double over_mean_s = 0;          // per iteration, the longest compute over the ranks' mean
};

// `events` are a trace's traceEvents.
Stragglers stragglers_of(const nlohmann::json& events);

// "rank 2 computed longest in 39 of 39 iterations; the others waited 0.050 s per iteration
// for it"; "" without two ranks traced.
std::string stragglers_text(const Stragglers& s);

}  // namespace dtbench
