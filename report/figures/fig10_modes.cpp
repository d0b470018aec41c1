// Figure 10, "Blocking, overlap, stale": its table, caption and sentences, drawn by fig10_modes.gp.
#include <fmt/format.h>

#include "common/phase_timer.h"
#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData modes(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "modes", &model);
  f.table.columns = {"mode",        "method", "mean_s",     "ci95_low_s",
                     "ci95_high_s", "sync_s", "final_loss", "test_accuracy"};
  for (const TrainRun* r : runs) {
    Summary t = summarize(timed(*r));
    f.table.rows.push_back({param(*r, "mode"), method_label(*r), t.mean, t.ci95_low, t.ci95_high,
                            phase_mean(*r, static_cast<size_t>(Phase::sync)),
                            r->record.iterations.loss.back(), final_accuracy(*r)});
  }
  f.labels["evaluated"] = evaluated_label(runs);
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Blocking (communicate after backward), overlap (from gradient hooks "
      "during backward) and stale (apply the previous step's gradient); {}, "
      "{} ranks, {} iterations",
      model, runs[0]->ranks, runs[0]->record.iterations.loss.size());
  const size_t fastest = f.table.extremes("mean_s").first;
  f.sentences.push_back(
      fmt::format("{} was the fastest mode ({} s per iteration, exposed sync {} s).",
                  f.table.text(fastest, "mode"), short_number(f.table.number(fastest, "mean_s")),
                  short_number(f.table.number(fastest, "sync_s"))));
  range_sentence(f, "mode", "mode");
  return f;
}

}  // namespace dtbench::report
