// Figure 2, "Where the iteration goes": its table, caption and sentences,
// drawn by fig02_breakdown.gp.
#include <fmt/format.h>

#include "common/phase_timer.h"
#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData breakdown(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "sync_methods", &model);
  f.table.columns = {"method", "data_s",      "forward_s", "backward_s",
                     "sync_s", "optimizer_s", "sync_share"};
  for (const TrainRun* r : runs) {
    std::vector<nlohmann::json> row = {method_label(*r)};
    double total = 0, sync = 0;
    for (size_t p = 0; p < kPhaseCount; ++p) {
      double mean = phase_mean(*r, p);
      row.push_back(mean);
      total += mean;
      if (p == static_cast<size_t>(Phase::sync)) sync = mean;
    }
    double share = total > 0 ? sync / total : 0;
    row.push_back(share);
    f.table.rows.push_back(row);
  }
  if (runs.empty()) return f;
  auto [least, most] = f.table.extremes("sync_share");
  f.caption = fmt::format(
      "Mean time per phase (iterations {}..{}); sync is the exposed "
      "synchronisation, waited for after backward; {}",
      kTimedFirst, kTimedLast, model_caption(model, *runs[0]));
  f.sentences.push_back(fmt::format(
      "Exposed synchronisation ranged from {:.0f}% of the iteration ({}) to {:.0f}% ({}). "
      "Methods that communicate during backward show their cost in the backward phase instead.",
      100 * f.table.number(least, "sync_share"), f.table.text(least, "method"),
      100 * f.table.number(most, "sync_share"), f.table.text(most, "method")));
  return f;
}

}  // namespace dtbench::report
