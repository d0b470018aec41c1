#pragma once
// What one run's trace shows, read once: the share of its communication hidden behind compute
// (overlap.h), the rank the others wait for (stragglers.h), and the gradient-ready instants and
// the slowest rank's compute the cost model reads (trace_facts.h). Every reader (the diagnosis,
// `dtbench predict`, the model's inputs, figure 19) asks trace_of(), which parses a run's trace
// the first time and keeps the answer with the run.
#include "report/read/results.h"
#include "report/traces/overlap.h"
#include "report/traces/stragglers.h"
#include "report/traces/trace_facts.h"

namespace dtbench {

struct RunTrace {
  OverlapShare overlap;  // 0 iterations: not traced, or no communication span
  Stragglers stragglers;
  TraceFacts facts;  // this run's alone
};

// The run's trace, parsed on the first call (an untraced run: an empty RunTrace). A corrupt gzip
// stream is a UserError naming the file.
const RunTrace& trace_of(const TrainRun& run);

}  // namespace dtbench
