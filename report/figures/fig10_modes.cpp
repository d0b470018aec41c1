// Figure 10, "Blocking, overlap, stale": its table, caption and sentences, drawn by fig10_modes.gp.
#include <fmt/format.h>

#include <map>

#include "common/phase_timer.h"
#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData modes(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "modes", &model);
  f.table.columns = {"mode",   "method",     "median_s",      "ci95_low_s", "ci95_high_s",
                     "sync_s", "final_loss", "test_accuracy", "low_s",      "high_s"};
  std::map<std::string, std::vector<std::pair<std::string, Repeated>>> by_method;
  for (const TrainRun* r : runs) {
    Repeated judged = repeated_time(s, *r);
    f.table.rows.push_back({param(*r, "mode"), method_label(*r), judged.median_s, judged.ci95_low_s,
                            judged.ci95_high_s, phase_mean(*r, static_cast<size_t>(Phase::sync)),
                            r->record.iterations.loss.back(), final_accuracy(*r), judged.low_s,
                            judged.high_s});
    by_method[method_label(*r)].push_back({param(*r, "mode"), judged});
  }
  f.labels["evaluated"] = evaluated_label(runs);
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Blocking (communicate after backward), overlap (from gradient hooks "
      "during backward) and stale (apply the previous step's gradient); {}, "
      "{} ranks, {} iterations",
      model, runs[0]->ranks, runs[0]->record.iterations.loss.size());
  for (const auto& [method, rows] : by_method) {
    f.sentences.push_back(ranking_sentence("With " + method, "mode", rows));
  }
  range_sentence(f, "mode", "mode");
  return f;
}

}  // namespace dtbench::report
