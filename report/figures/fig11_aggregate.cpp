// Figure 11, "Mean vs sum": its table, caption and sentences, drawn by fig11_aggregate.gp.
#include <fmt/format.h>

#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData aggregate(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "aggregate", &model);
  f.table.columns = {"aggregate", "final_loss", "test_loss", "test_accuracy", "mean_s"};
  Table curves;
  curves.columns = {"aggregate", "iteration", "loss"};
  std::vector<std::string> series;
  for (const TrainRun* r : runs) {
    f.table.rows.push_back({param(*r, "aggregate"), r->record.iterations.loss.back(), test_loss(*r),
                            final_accuracy(*r), summarize(timed(*r)).mean});
    series.push_back(param(*r, "aggregate"));
    add_loss_curve(curves, param(*r, "aggregate"), *r);
  }
  f.extra.push_back({"curves", curves});
  f.series = fmt::format("{}", fmt::join(series, " "));
  f.labels["evaluated"] = evaluated_label(runs);
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Training loss with the gradients averaged (mean) or summed (sum: the "
      "step is n = {} times larger); {}",
      runs[0]->ranks, model);
  range_sentence(f, "aggregate", "aggregation");
  return f;
}

}  // namespace dtbench::report
