// Figure 7, "Loss and accuracy per method": its table, caption and sentences,
// drawn by fig07_loss_accuracy.gp.
#include <fmt/format.h>

#include <algorithm>

#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData loss_accuracy(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "sync_methods", &model);
  f.table.columns = {"method", "iterations", "final_loss", "test_accuracy", "test_images"};
  Table curves;
  curves.columns = {"method", "iteration", "loss"};
  std::vector<std::string> series;
  for (const TrainRun* r : runs) {
    const auto& e = r->record.evaluations;
    f.table.rows.push_back(
        {method_label(*r), static_cast<int64_t>(r->record.iterations.loss.size()),
         r->record.iterations.loss.back(), final_accuracy(*r), e.empty() ? 0 : e.back().total});
    if (param(*r, "backend") == "gloo" && param(*r, "sync") != "c10d_ddp") continue;
    series.push_back(method_label(*r));
    add_loss_curve(curves, method_label(*r), *r);
  }
  f.extra.push_back({"curves", curves});
  f.series = fmt::format("{}", fmt::join(series, " "));
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Training loss per iteration (MPI methods and c10d_ddp) and test "
      "accuracy at the end; {}",
      model_caption(model, *runs[0]));
  auto [low, high] = f.table.extremes("test_accuracy");
  double lo = low < f.table.rows.size() ? f.table.number(low, "test_accuracy") : 1;
  double hi = high < f.table.rows.size() ? f.table.number(high, "test_accuracy") : 0;
  auto iterations = static_cast<int64_t>(f.table.number(0, "iterations"));
  f.labels["evaluated"] = evaluated_label(runs);
  const bool evaluated = f.labels["evaluated"] == "1";
  if (!evaluated) {
    f.sentences.push_back(
        "These runs did not evaluate the model on the test set (eval=false): only their "
        "training loss is shown.");
  } else if (hi >= lo && hi - lo < 5e-4) {
    f.sentences.push_back(fmt::format(
        "Every method reached the same test accuracy after {} iterations, {:.1f}%: they compute "
        "the same averaged gradient, up to the order of floating-point sums.",
        iterations, 100 * hi));
  } else if (hi >= lo) {
    f.sentences.push_back(fmt::format(
        "Test accuracy after {} iterations ranged from {:.1f}% to {:.1f}% across methods: they "
        "compute the same averaged gradient, so differences come from the order of "
        "floating-point sums, which BatchNorm and a high learning rate amplify.",
        iterations, 100 * lo, 100 * hi));
  }
  return f;
}

}  // namespace dtbench::report
