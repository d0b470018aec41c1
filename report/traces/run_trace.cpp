#include "report/traces/run_trace.h"

#include <memory>

namespace dtbench {

const RunTrace& trace_of(const TrainRun& run) {
  if (!run.trace) {
    auto read = std::make_shared<RunTrace>();
    const nlohmann::json events = trace_events(run.trace_file());
    if (!events.empty()) {
      read->overlap = overlap_of(events);
      read->stragglers = stragglers_of(events);
      read->facts = trace_facts_of(events);
      read->facts.straggler_s = {read->stragglers.over_mean_s};  // the model's, as the diagnosis's
    }
    run.trace = std::move(read);
  }
  return *run.trace;
}

}  // namespace dtbench
