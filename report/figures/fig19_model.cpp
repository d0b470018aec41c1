// Figure 19, "Model vs measurement": each training experiment's iteration time as the cost
// model predicts it (report/predict/predict.h, docs/model.md) against the measurement, on the y = x
// line, with the error and the phase where the two differ most.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/figures/common.h"
#include "report/predict/predict.h"
#include "report/traces/run_trace.h"

namespace dtbench::report {

namespace {

// The error the model is held to: the emulated cluster's links are known; a machine's own
// loopback, shared with the compute on its cores, less so.
double target_of(const SystemResults& s) {
  return s.system.value("emulated_cluster", false) ? 0.10 : 0.15;
}

}  // namespace

FigureData model_vs_measurement(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  f.table.columns = {"experiment",     "measured_s",      "predicted_s",
                     "error_pct",      "worst_phase",     "worst_phase_difference_s",
                     "measured_p95_s", "predicted_p95_s", "p95_error_pct"};
  const Prediction& p = prediction_of(s);
  for (const auto& r : p.rows) {
    f.table.rows.push_back({r.label, r.measured_s, r.predicted.total_s(), 100 * r.error(),
                            r.worst_phase(), r.worst_phase_difference_s(), r.measured_p95_s,
                            r.predicted_p95_s, 100 * r.p95_error()});
  }
  if (p.rows.empty()) return f;
  f.caption = fmt::format(
      "Iteration time (mean of iterations {}..{}, mean over repetitions) predicted by the cost "
      "model against measured, one point per experiment, with the line y = x; {}",
      kTimedFirst, kTimedLast, model_caption(p.rows[0].run->record.config.model, *p.rows[0].run));
  // The target holds the methods that send the exact sum; the lossy ones are stated apart, each
  // with what its prediction rests on.
  const double target = target_of(s);
  int within = 0, exact = 0;
  const PredictedExperiment* worst = nullptr;
  std::vector<std::string> lossy;
  for (const auto& r : p.rows) {
    if (r.lossy) {
      lossy.push_back(fmt::format("{} {:+.1f}% ({} {:+.3f} s; {})", r.label, 100 * r.error(),
                                  r.worst_phase(), r.worst_phase_difference_s(), r.lossy_basis));
      continue;
    }
    ++exact;
    if (std::abs(r.error()) <= target) ++within;
    if (worst == nullptr || std::abs(r.error()) > std::abs(worst->error())) worst = &r;
  }
  if (worst != nullptr) {
    f.sentences.push_back(fmt::format(
        "The model is within {} of the measured iteration time for {} of {} experiments here (the "
        "target on {}{}); the largest error is {:+.1f}% ({}), where the {} phase differs most "
        "({:+.3f} s predicted minus measured{}).",
        percent(target), within, exact,
        s.system.value("emulated_cluster", false) ? "the emulated cluster" : "one machine",
        lossy.empty() ? "" : ", for the methods that send the exact sum", 100 * worst->error(),
        worst->label, worst->worst_phase(), worst->worst_phase_difference_s(),
        worst->communication_text().empty() ? "" : "; " + worst->communication_text()));
  }
  for (const auto& r : p.rows) {
    if (!r.lossy && std::abs(r.error()) > target && &r != worst) {
      const std::string why = r.communication_text();
      f.sentences.push_back(fmt::format(
          "{}: {:+.1f}%, most of it in {} ({:+.3f} s{}).", r.label, 100 * r.error(),
          r.worst_phase(), r.worst_phase_difference_s(), why.empty() ? "" : "; " + why));
    }
  }
  const ModelAccuracy a = accuracy_of(p);
  f.sentences.push_back(fmt::format("Judged as the best predictors are (dPRO, Proteus), {}; {}.",
                                    errors_sentence(a), ranking_sentence(p, a)));
  if (const std::string alike = alike_sentence(p); !alike.empty()) {
    f.sentences.push_back(fmt::format("The noise under it: {}.", alike));
  }
  if (const std::string p95 = p95_sentence(p); !p95.empty()) {
    f.sentences.push_back(fmt::format("The spread: {}.", p95));
  }
  std::vector<std::string> hidden;
  for (const auto& r : p.rows) {
    const OverlapShare& o = trace_of(*r.traced).overlap;
    if (o.iterations == 0 || o.comm_s <= 0) continue;
    hidden.push_back(fmt::format("{} {:.0f}% of {:.3f} s ({:.3f} s exposed)", r.label,
                                 100 * o.hidden_share(), o.comm_s, o.exposed()));
  }
  if (!hidden.empty()) {
    f.sentences.push_back(fmt::format(
        "Communication hidden behind compute, measured from the traces (per iteration and rank, "
        "the union of each rank's operations in flight against its data, forward, backward and "
        "optimizer phases): {}.",
        fmt::join(hidden, "; ")));
  }
  if (!lossy.empty()) {
    f.sentences.push_back(fmt::format("The lossy methods, stated apart from the target: {}.",
                                      fmt::join(lossy, "; ")));
  }
  for (const auto& r : p.rows) {
    if (r.best_s > 0 && r.run->record.config.sync == "bucketed") {
      f.sentences.push_back(best_text(r) + ".");
    }
  }
  f.sentences.push_back("The model's inputs, all from these results: " +
                        fmt::format("{}.", fmt::join(p.notes, "; ")));
  return f;
}

}  // namespace dtbench::report
