// Figure 18, "Sending less: accuracy and time to accuracy": test accuracy of the
// communication-efficient strategies against training time (matrix group "compression", the
// LeNet-5 runs over several epochs), and the time each took to a target accuracy, drawn by
// fig18_compression_accuracy.gp.
#include <fmt/format.h>

#include <cmath>

#include "report/figures/common.h"
#include "train/stats.h"

namespace dtbench::report {

namespace {

// The share of the float32 baseline's final accuracy that counts as reaching it.
constexpr double kTargetShare = 0.98;

// Training time (the sum of the iteration times) when each evaluation was taken.
std::vector<double> time_at_evaluations(const TrainRun& r) {
  std::vector<double> at;
  const auto& total = r.record.iterations.total_s;
  double sum = 0;
  size_t done = 0;
  for (const auto& e : r.record.evaluations) {
    for (; done < static_cast<size_t>(e.iterations) && done < total.size(); ++done) {
      sum += total[done];
    }
    at.push_back(sum);
  }
  return at;
}

}  // namespace

FigureData compression_accuracy(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  auto runs = runs_with(s, "compression", "lenet5");
  f.table.columns = {"method",         "epochs",  "iterations",
                     "final_accuracy", "train_s", "time_to_target_s"};
  Table curves, losses;
  curves.columns = {"method", "train_s", "test_accuracy"};
  losses.columns = {"method", "iteration", "loss"};
  const TrainRun* fp32 = nullptr;
  for (const TrainRun* r : runs) {
    if (param(*r, "sync") == "bucketed" && !r->record.evaluations.empty()) fp32 = r;
  }
  const double target =
      fp32 != nullptr ? kTargetShare * fp32->record.evaluations.back().accuracy : std::nan("");
  std::vector<std::string> series;
  std::vector<const TrainRun*> row_runs;  // the run of each table row
  for (const TrainRun* r : runs) {
    const auto& evaluations = r->record.evaluations;
    if (evaluations.empty()) continue;
    const auto at = time_at_evaluations(*r);
    double to_target = std::nan("");
    for (size_t i = 0; i < evaluations.size(); ++i) {
      curves.rows.push_back({method_label(*r), at[i], evaluations[i].accuracy});
      if (std::isnan(to_target) && evaluations[i].accuracy >= target) to_target = at[i];
    }
    f.table.rows.push_back({method_label(*r), evaluations.back().epoch,
                            evaluations.back().iterations, evaluations.back().accuracy, at.back(),
                            to_target});
    row_runs.push_back(r);
    add_loss_curve(losses, method_label(*r), *r);
    series.push_back(method_label(*r));
  }
  f.extra.push_back({"curves", curves});
  f.extra.push_back({"losses", losses});
  f.series = fmt::format("{}", fmt::join(series, " "));
  if (f.table.rows.empty()) return f;
  f.caption = fmt::format(
      "Test accuracy after each epoch against training time (the sum of the iteration times, "
      "evaluation excluded), and the training loss per iteration (the repetition with the median "
      "iteration time of each); {}",
      model_caption("lenet5", *runs[0]));
  if (fp32 == nullptr) {
    f.sentences.push_back("The float32 baseline (bucketed) was not measured: no target accuracy.");
    return f;
  }
  std::vector<std::string> reached, missed;
  const TrainRun* first = nullptr;
  double first_time = 0;
  for (size_t i = 0; i < f.table.rows.size(); ++i) {
    const double t = f.table.number(i, "time_to_target_s");
    if (!std::isnan(t) && (first == nullptr || t < first_time)) first = row_runs[i], first_time = t;
  }
  for (const auto& row : f.table.rows) {
    const std::string method = row[f.table.column("method")].get<std::string>();
    const double t = row[f.table.column("time_to_target_s")].get<double>();
    if (std::isnan(t)) {
      missed.push_back(fmt::format("{} ({} at the end)", method,
                                   percent(row[f.table.column("final_accuracy")].get<double>())));
    } else {
      reached.push_back(fmt::format("{} {} s", method, short_number(t)));
    }
  }
  f.sentences.push_back(fmt::format(
      "Target: {} test accuracy, {:.0f}% of what bucketed in float32 reached. Time to it (at the "
      "first evaluation, after each epoch, at or above it): {}.",
      percent(target), 100 * kTargetShare, fmt::join(reached, ", ")));
  if (first != nullptr && first != fp32) {
    const bool out = stands_out(repeated_time(s, *first), repeated_time(s, *fp32));
    f.sentences.push_back(
        fmt::format("{} got there first; its iteration time {} bucketed's.", method_label(*first),
                    out ? "differs from, out of the noise," : "is within the noise of"));
  }
  if (!missed.empty()) {
    f.sentences.push_back(
        fmt::format("Never reached it in these epochs: {}.", fmt::join(missed, ", ")));
  }
  f.sentences.push_back(
      "One run per method (the repetition with the median iteration time): accuracy differences "
      "of a few tenths of a percent are within what another seed would change.");
  return f;
}

}  // namespace dtbench::report
