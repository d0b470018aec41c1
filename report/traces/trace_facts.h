#pragma once
// What `dtbench predict` reads from a run's Chrome trace (docs/traces.md): the phase spans and
// the gradient-ready instants.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dtbench {

// What the blocking runs' traces say: when each gradient is ready, as a fraction of its
// backward (per parameter, summed over ranks and iterations), and per run how much longer the
// slowest rank's compute took than the ranks' mean (the record keeps each phase's mean over the
// ranks): stragglers.h's over_mean_s, which trace_of (run_trace.h) puts here. Nothing is added
// for a missing file or one without them.
struct TraceFacts {
  std::vector<double> sum, bytes;
  std::vector<int> count;
  std::vector<double> straggler_s;
};

// The traceEvents of the trace at path (trace.json.gz or trace.json); an empty array for "" or
// a file that is not a trace. A corrupt gzip stream is a UserError naming the file.
nlohmann::json trace_events(const std::string& path);

// Each rank's `iteration` spans [begin, end) in microseconds, in order (the k-th of every rank
// is the same step: each rank traces the same iterations).
std::map<int, std::vector<std::pair<double, double>>> iteration_spans(const nlohmann::json& events);

// One trace's gradient-ready facts, from its traceEvents (nothing for events without them).
TraceFacts trace_facts_of(const nlohmann::json& events);

// Adds one run's facts to those of others (out).
void add_facts(const TraceFacts& one, TraceFacts& out);

}  // namespace dtbench
