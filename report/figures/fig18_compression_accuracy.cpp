// Figure 18, "Sending less: accuracy and time to accuracy": test accuracy of the
// communication-efficient strategies against training time, and the time each took to a target
// accuracy, per model: LeNet-5 from matrix group "compression", VGG-11 from group
// "compression_epochs" (its runs over several epochs on part of the training set); drawn by
// fig18_compression_accuracy.gp, one row of panels per model.
#include <fmt/format.h>

#include <cmath>

#include "report/figures/common.h"
#include "stats/stats.h"

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

// Where each model's runs over several epochs are.
struct AccuracyRuns {
  const char* group;
  const char* model;
};
constexpr AccuracyRuns kAccuracyRuns[] = {{"compression", "lenet5"},
                                          {"compression_epochs", "vgg11"}};

// The first of the evaluations at or above `accuracy`; their count when none is (or `accuracy` is
// NaN).
size_t first_at_or_above(const std::vector<Evaluation>& evaluations, double accuracy) {
  size_t i = 0;
  while (i < evaluations.size() && !(evaluations[i].accuracy >= accuracy)) ++i;
  return i;
}

// When each method first reached its final accuracy, against when float32 first reached it.
// Evaluations come only after each epoch, so a method is sooner only where it got there before
// float32's last evaluation below that accuracy, later only where it was still below it after
// float32's first one at or above it, and not told apart otherwise.
std::string against_float32(const std::vector<const TrainRun*>& runs, const TrainRun& fp32) {
  const auto fp32_at = time_at_evaluations(fp32);
  const auto& fp32_evaluations = fp32.record.evaluations;
  std::vector<std::string> parts;
  for (const TrainRun* r : runs) {
    if (r == &fp32) continue;
    // The method's first evaluation at or above its final accuracy.
    const auto& evaluations = r->record.evaluations;
    const double accuracy = evaluations.back().accuracy;
    const size_t first = first_at_or_above(evaluations, accuracy);
    const auto at = time_at_evaluations(*r);
    const double reached = at[first], still_below = first == 0 ? 0 : at[first - 1];
    const size_t k = first_at_or_above(fp32_evaluations, accuracy);
    std::string part =
        fmt::format("{} {} at {} s", method_label(*r), percent(accuracy), short_number(reached));
    if (k == fp32_evaluations.size()) {
      parts.push_back(part + ", never reached by bucketed");
      continue;
    }
    const double below = k == 0 ? 0 : fp32_at[k - 1];
    const char* verdict = reached < below            ? "sooner"
                          : still_below > fp32_at[k] ? "later"
                                                     : "not told apart";
    parts.push_back(
        fmt::format("{} against bucketed's {} s (epoch {}{}): {}", part, short_number(fp32_at[k]),
                    fp32_evaluations[k].epoch,
                    k == 0 ? "" : fmt::format(", below it at {} s", short_number(below)), verdict));
  }
  if (parts.empty()) return "";
  return fmt::format(
      "When each method first had its final accuracy, against the training time at which "
      "bucketed in float32 first reached it (evaluations only after each epoch: sooner or later "
      "only where an evaluation of bucketed lies between the two): {}.",
      fmt::join(parts, "; "));
}

// One model's rows, curves (series "<model>:<method>") and sentences.
void add_model(const SystemResults& s, const std::vector<const TrainRun*>& runs,
               const std::string& model, FigureData& f, Table& curves, Table& losses) {
  const TrainRun* fp32 = nullptr;
  for (const TrainRun* r : runs) {
    if (param(*r, "sync") == "bucketed") fp32 = r;
  }
  const double target =
      fp32 != nullptr ? kTargetShare * fp32->record.evaluations.back().accuracy : std::nan("");
  std::vector<std::string> methods, reached, missed;
  const TrainRun* first = nullptr;
  double first_time = 0;
  for (const TrainRun* r : runs) {
    const auto& evaluations = r->record.evaluations;
    const auto at = time_at_evaluations(*r);
    const std::string method = method_label(*r), series = model + ":" + method;
    for (size_t i = 0; i < evaluations.size(); ++i) {
      curves.rows.push_back({series, at[i], evaluations[i].accuracy});
    }
    const size_t hit = first_at_or_above(evaluations, target);
    const double to_target = hit < evaluations.size() ? at[hit] : std::nan("");
    f.table.rows.push_back({model, method, evaluations.back().epoch, evaluations.back().iterations,
                            evaluations.back().accuracy, at.back(), to_target});
    add_loss_curve(losses, series, *r);
    methods.push_back(method);
    if (std::isnan(to_target)) {
      missed.push_back(
          fmt::format("{} ({} at the end)", method, percent(evaluations.back().accuracy)));
    } else {
      reached.push_back(fmt::format("{} {} s", method, short_number(to_target)));
      if (first == nullptr || to_target < first_time) first = r, first_time = to_target;
    }
  }
  f.labels["methods_" + model] = fmt::format("{}", fmt::join(methods, " "));
  if (fp32 == nullptr) {
    f.sentences.push_back(fmt::format(
        "{}: the float32 baseline (bucketed) was not measured: no target accuracy.", model));
    return;
  }
  f.sentences.push_back(fmt::format(
      "{}: target {} test accuracy, {:.0f}% of what bucketed in float32 reached. Time to it (at "
      "the first evaluation, after each epoch, at or above it): {}.",
      model, percent(target), 100 * kTargetShare, fmt::join(reached, ", ")));
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
  const std::string against = against_float32(runs, *fp32);
  if (!against.empty()) f.sentences.push_back(against);
}

}  // namespace

FigureData compression_accuracy(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  f.table.columns = {"model",          "method",  "epochs",          "iterations",
                     "final_accuracy", "train_s", "time_to_target_s"};
  Table curves, losses;
  curves.columns = {"series", "train_s", "test_accuracy"};
  losses.columns = {"series", "iteration", "loss"};
  std::vector<std::string> models, captions;
  for (const auto& [group, model] : kAccuracyRuns) {
    std::vector<const TrainRun*> runs;
    for (const TrainRun* r : runs_with(s, group, model)) {
      if (r->record.evaluations.size() > 1) runs.push_back(r);
    }
    if (runs.empty()) continue;
    models.emplace_back(model);
    const auto& config = runs[0]->record.config;
    captions.push_back(fmt::format(
        "{}{}", model_caption(model, *runs[0]),
        config.train_limit > 0 ? fmt::format(", the first {} training images", config.train_limit)
                               : ""));
    add_model(s, runs, model, f, curves, losses);
  }
  f.extra.push_back({"curves", curves});
  f.extra.push_back({"losses", losses});
  f.series = fmt::format("{}", fmt::join(models, " "));
  if (f.table.rows.empty()) return f;
  f.caption = fmt::format(
      "Test accuracy after each epoch against training time (the sum of the iteration times, "
      "evaluation excluded), and the training loss per iteration (the repetition with the median "
      "iteration time of each), one row per model; {}",
      fmt::join(captions, "; "));
  f.sentences.push_back(
      "One run per method (the repetition with the median iteration time): accuracy differences "
      "of a few tenths of a percent are within what another seed would change.");
  return f;
}

}  // namespace dtbench::report
