// Figure 17, "Sending less: time and bytes": the communication-efficient strategies' iteration
// time and payload (matrix group "compression", the model with most runs, VGG-11 in the
// matrices) against the uncompressed bucketed engine, drawn by fig17_compression.gp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "report/figures/common.h"
#include "stats/stats.h"

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

// What each host's network interfaces (not loopback) sent per iteration over the whole run,
// averaged over the hosts, in MB; NaN when none sent anything (all ranks on one host). Ranks on
// one host read the same counters, so each host counts once.
double host_mb(const TrainRun& r) {
  const auto iterations = static_cast<double>(r.record.iterations.total_s.size());
  std::map<std::string, double> per_host;
  for (const auto& rank : r.record.ranks) {
    double sent = 0;
    for (const auto& [device, counts] : rank.nic.items()) {
      if (device != "lo") sent += counts.value("sent_bytes", 0.0);
    }
    per_host[rank.host] = std::max(per_host[rank.host], sent);
  }
  double total = 0;
  for (const auto& [host, sent] : per_host) total += sent;
  if (iterations == 0 || total == 0) return std::nan("");
  return mb(total / static_cast<double>(per_host.size()) / iterations);
}

}  // namespace

FigureData compression_time(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "compression", &model);
  f.table.columns = {"method",       "reps",        "median_s",     "low_s",
                     "high_s",       "payload_MB",  "time_vs_fp32", "payload_vs_fp32",
                     "host_sent_MB", "host_vs_fp32"};
  const TrainRun* fp32 = nullptr;
  for (const TrainRun* r : runs) {
    if (param(*r, "sync") == "bucketed") fp32 = r;
  }
  const Repeated reference = fp32 != nullptr ? repeated_time(s, *fp32) : Repeated{};
  const double reference_mb = fp32 != nullptr ? payload_mb(*fp32) : std::nan("");
  const double reference_host_mb = fp32 != nullptr ? host_mb(*fp32) : std::nan("");
  std::vector<std::string> faster, slower, level;
  for (const TrainRun* r : runs) {
    const Repeated t = repeated_time(s, *r);
    const double ratio = fp32 != nullptr ? ratio_within_rounds(t, reference) : std::nan("");
    const double payload = payload_mb(*r), host = host_mb(*r);
    f.table.rows.push_back({method_label(*r), t.reps, t.median_s, t.low_s, t.high_s, payload, ratio,
                            payload / reference_mb, host, host / reference_host_mb});
    if (r == fp32 || std::isnan(ratio)) continue;
    const std::string leaving = std::isnan(host / reference_host_mb)
                                    ? ""
                                    : fmt::format(", {}x the bytes leaving each host",
                                                  short_number(host / reference_host_mb));
    const std::string words =
        fmt::format("{} ({}x the time, {}x the payload{})", method_label(*r), short_number(ratio),
                    short_number(payload / reference_mb), leaving);
    if (!stands_out(t, reference)) {
      level.push_back(words);
    } else {
      (t.median_s < reference.median_s ? faster : slower).push_back(words);
    }
  }
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Iteration time (bars: median over repetitions of the mean of iterations {}..{}, whiskers "
      "their range, or the within-run 95% interval widened to how far apart runs of one "
      "configuration fell here) and payload handed over per rank and "
      "iteration (log scale), against bucketed in float32, whose buckets the compressing hooks "
      "share (the table adds what each host's network interfaces sent per iteration, where "
      "ranks are on several hosts); {}",
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
