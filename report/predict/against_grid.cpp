#include "report/predict/against_grid.h"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <utility>

#include "catalogue/methods.h"
#include "report/predict/candidates.h"
#include "report/predict/p95.h"
#include "report/read/select.h"

namespace dtbench {

GridAgreement against_grid(const SystemResults& study, const SystemResults& grid) {
  GridAgreement g;
  g.all.label = grid.label;
  g.study_system = study.label;
  std::set<std::string> done;
  for (const TrainRun& run : grid.runs) {
    if ((run.kind != "train" && run.kind != "python_ddp") || !done.insert(run.name).second) {
      continue;
    }
    TrainConfig c = run.record.config;
    if (run.kind == "python_ddp") c.sync = "python_ddp";  // its own engine, not modelled
    const CandidateCell cell = predict_cell(study, c);
    if (std::isnan(cell.predicted_s)) {
      g.not_predicted.push_back(fmt::format("{} ({}): {}", c.sync, run.name, cell.basis));
      continue;
    }
    PredictedExperiment row = measured_row(grid, run, report::engine_label(run));
    row.predicted = cell.phases;
    row.predicted_p95_s = cell.predicted_s + cell.spread_p95_s;
    g.all.rows.push_back(row);
  }
  // The spread as the study's other methods measured it.
  g.all.p95_without_others = p95_from_other_methods(g.all.rows, prediction_of(study).rows);
  for (const auto& row : g.all.rows) {
    if (row.run->record.config.sync_options.bucket_mb == kDefaultBucketMb) {
      g.methods.rows.push_back(row);
    }
  }
  g.methods.p95_without_others = g.all.p95_without_others;
  g.methods.label = g.all.label;
  return g;
}

std::string against_grid_text(const GridAgreement& g) {
  std::string text =
      "the study's model (its compute and sweeps only) against the grid's measurements, each the "
      "mean of its repetitions; noise: the range of the grid's repetitions\n";
  if (g.study_system != g.all.label) {
    text += fmt::format(
        "warning: measured on different systems (the study: {}; the grid: {}): the model is held "
        "across them\n",
        g.study_system, g.all.label);
  }
  if (!g.all.rows.empty()) {
    text += fmt::format("\n{:<36} {:>4} {:>17} {:>9} {:>9} {:>8}\n", "experiment", "reps",
                        "range (s)", "measured", "predicted", "error");
    for (const auto& r : g.all.rows) {
      text += fmt::format("{:<36} {:>4} {:>8.4f}-{:<8.4f} {:>8.4f}s {:>8.4f}s {:>+7.1f}%\n",
                          r.label, r.reps, r.low_s, r.high_s, r.measured_s, r.predicted.total_s(),
                          100 * r.error());
    }
    text += "\nphase by phase:" + rows_text(g.all);
  }
  for (const std::string& n : g.not_predicted) text += "not predicted: " + n + "\n";
  int within = 0;
  for (const auto& r : g.all.rows) within += std::abs(r.error()) <= GridAgreement::kWithin;
  for (const auto& [name, p] : {std::pair{"the methods (at the default bucket size)", &g.methods},
                                std::pair{"every cell", &g.all}}) {
    const ModelAccuracy a = accuracy_of(*p);
    if (a.experiments == 0) continue;
    text += fmt::format("over {}:\n{}", name, accuracy_text(*p, a));
  }
  if (g.all.rows.empty()) return text + "no experiment of the grid is predicted from the study\n";
  return text + fmt::format("within {:.0f}% of the grid: {} of {} predictions\n",
                            100 * GridAgreement::kWithin, within, g.all.rows.size());
}

}  // namespace dtbench
