// Figure 17, "Sending less: time and bytes": the communication-efficient strategies' iteration
// time and payload (matrix group "compression", the model with most runs, VGG-11 in the
// matrices) against the uncompressed bucketed engine, drawn by fig17_compression.gp.
#include <fmt/format.h>

#include <cmath>

#include "report/figures/common.h"
#include "train/stats.h"

namespace dtbench::report {

namespace {

// Payload handed over per rank and iteration, averaged over the ranks, in MB.
double payload_mb(const TrainRun& r) {
  const auto iterations = static_cast<double>(r.record.iterations.total_s.size());
  if (iterations == 0 || r.record.ranks.empty()) return std::nan("");
  double sent = 0;
  for (const auto& rank : r.record.ranks) sent += static_cast<double>(rank.payload_sent_bytes);
  return mb(sent / static_cast<double>(r.record.ranks.size()) / iterations);
}

}  // namespace

FigureData compression_time(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "compression", &model);
  f.table.columns = {"method", "reps",       "median_s",     "low_s",
                     "high_s", "payload_MB", "time_vs_fp32", "payload_vs_fp32"};
  const TrainRun* fp32 = nullptr;
  for (const TrainRun* r : runs) {
    if (param(*r, "sync") == "bucketed") fp32 = r;
  }
  const Repeated reference = fp32 != nullptr ? repeated_time(s, *fp32) : Repeated{};
  const double reference_mb = fp32 != nullptr ? payload_mb(*fp32) : std::nan("");
  std::vector<std::string> faster, slower, level;
  for (const TrainRun* r : runs) {
    const Repeated t = repeated_time(s, *r);
    const double ratio = fp32 != nullptr ? ratio_within_rounds(t, reference) : std::nan("");
    const double payload = payload_mb(*r);
    f.table.rows.push_back({method_label(*r), t.reps, t.median_s, t.low_s, t.high_s, payload, ratio,
                            payload / reference_mb});
    if (r == fp32 || std::isnan(ratio)) continue;
    const std::string words =
        fmt::format("{} ({}x the time, {}x the bytes)", method_label(*r), short_number(ratio),
                    short_number(payload / reference_mb));
    if (!stands_out(t, reference)) {
      level.push_back(words);
    } else {
      (t.median_s < reference.median_s ? faster : slower).push_back(words);
    }
  }
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Iteration time (bars: median over repetitions of the mean of iterations {}..{}, whiskers "
      "their range or the within-run 95% interval) and payload handed over per rank and "
      "iteration (log scale), against bucketed in float32, whose buckets the compressing hooks "
      "share; {}",
      kTimedFirst, kTimedLast, model_caption(model, *runs[0]));
  if (fp32 == nullptr) {
    f.sentences.push_back(
        "The uncompressed baseline (bucketed) was not measured in this group: no ratios.");
    return f;
  }
  auto list = [](const std::vector<std::string>& v) {
    return fmt::format("{}", fmt::join(v, "; "));
  };
  if (!faster.empty()) {
    f.sentences.push_back(fmt::format(
        "Faster than bucketed in float32, out of the noise: {}. Here, sending less paid.",
        list(faster)));
  }
  if (!slower.empty()) {
    f.sentences.push_back(fmt::format(
        "Slower than bucketed in float32, out of the noise: {}. Here the work of compressing "
        "(and the extra collectives) cost more than the bytes saved.",
        list(slower)));
  }
  if (!level.empty()) {
    f.sentences.push_back(fmt::format(
        "Within the noise of bucketed in float32: {}. On this network the bytes saved did not "
        "show in the iteration time.",
        list(level)));
  }
  return f;
}

}  // namespace dtbench::report
