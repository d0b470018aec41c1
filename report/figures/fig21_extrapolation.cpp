// Figure 21, "The model past its fitted size": the runs on the most ranks a directory holds,
// predicted from its runs and sweeps on fewer ranks only (report/predict/extrapolation.h), beside
// every run predicted from the inputs measured on its own ranks (figure 19's), on y = x.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report/figures/common.h"
#include "report/predict/extrapolation.h"

namespace dtbench::report {

namespace {

std::string accuracy_words(const Prediction& p) {
  const ModelAccuracy a = accuracy_of(p);
  return fmt::format("mean |error| {}, largest {:+.1f}% ({})", percent(a.mean_abs_error),
                     100 * a.largest->error(), a.largest->label);
}

}  // namespace

FigureData extrapolation(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  const Extrapolation& e = extrapolation_of(s);
  if (e.ranks == 0 || e.prediction.rows.empty()) return f;
  f.table.columns = {"experiment", "ranks", "measured_s", "predicted_s", "error_pct", "fitted_on"};
  const std::string from = fmt::format("{}", fmt::join(e.from, ", "));
  const Prediction& here = prediction_of(s);
  for (const auto& r : here.rows) {
    f.table.rows.push_back({r.label, r.run->record.config.world_size, r.measured_s,
                            r.predicted.total_s(), 100 * r.error(), "its own ranks"});
  }
  for (const auto& r : e.prediction.rows) {
    f.table.rows.push_back({r.label, e.ranks, r.measured_s, r.predicted.total_s(), 100 * r.error(),
                            fmt::format("{} ranks", fmt::join(e.from, " and "))});
  }
  const PredictedExperiment& first = e.prediction.rows.front();
  f.caption = fmt::format(
      "Iteration time (mean of iterations {}..{}, mean over repetitions) predicted against "
      "measured, on y = x: the runs on {} ranks predicted from the runs and sweeps on {} ranks "
      "only (open circles), and every run predicted from what was measured on its own ranks "
      "(points); {}",
      kTimedFirst, kTimedLast, e.ranks, from,
      model_caption(first.run->record.config.model, *first.run));
  f.sentences.push_back(
      fmt::format("Fitted on {} ranks only, the model predicts the {} runs on {} ranks with {}.",
                  from, e.prediction.rows.size(), e.ranks, accuracy_words(e.prediction)));
  Prediction same;
  for (const auto& r : here.rows) {
    if (r.run->record.config.world_size == e.ranks) same.rows.push_back(r);
  }
  if (!same.rows.empty()) {
    f.sentences.push_back(fmt::format(
        "From the sweeps and compute measured on the {} ranks themselves, the same model has {}.",
        e.ranks, accuracy_words(same)));
  }
  std::vector<std::string> each;
  for (const auto& r : e.prediction.rows) {
    each.push_back(fmt::format("{} {:.4f} s predicted, {:.4f} s measured ({:+.1f}%)", r.label,
                               r.predicted.total_s(), r.measured_s, 100 * r.error()));
  }
  f.sentences.push_back(fmt::format("On {} ranks: {}.", e.ranks, fmt::join(each, "; ")));
  f.sentences.push_back(
      fmt::format("What the extrapolation rests on: {}.", fmt::join(e.prediction.notes, "; ")));
  return f;
}

}  // namespace dtbench::report
