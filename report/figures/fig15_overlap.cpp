// Figure 15, "Overlap engines on one network": its table, caption and sentences,
// drawn by fig15_overlap.gp.
#include <fmt/format.h>

#include <map>

#include "common/phase_timer.h"
#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData overlap_engines(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f = iteration_times_of(s, "overlap");
  if (f.table.rows.empty()) return f;
  f.caption =
      "The overlap engines (communication launched during backward) on one network: " + f.caption;
  std::map<std::string, double> sync;  // engine -> exposed sync, the representative repetition
  for (const TrainRun* r : runs_of(s, "overlap")) {
    if (is_python_ddp(*r)) continue;
    sync[engine_label(*r)] = phase_mean(*r, static_cast<size_t>(Phase::sync));
  }
  std::string text = "Exposed synchronisation after backward (the representative repetition):";
  for (const auto& [engine, seconds] : sync)
    text += fmt::format(" {} {} s;", engine, short_number(seconds));
  text.back() = '.';
  f.sentences.push_back(text);
  return f;
}

}  // namespace dtbench::report
