// Figure 6, "Bucket size": its table, caption and sentences, drawn by fig06_bucket_sweep.gp.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/phase_timer.h"
#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

namespace {

// The bucket sweep's runs, and the methods' own bucketed run of the same workload and backend
// where the sweep did not run its bucket size (the study measures the default 25 MB among the
// methods and only the other sizes in the sweep).
std::vector<const TrainRun*> bucket_runs(const SystemResults& s, std::string& model) {
  auto runs = runs_of(s, "bucket_sweep", &model);
  const auto size_key = [](const TrainRun& r) {
    return fmt::format("{} {}", noise_key(r), r.record.config.sync_options.bucket_mb);
  };
  std::set<std::string> workloads, sizes;
  for (const TrainRun* r : runs) {
    workloads.insert(noise_key(*r));
    sizes.insert(size_key(*r));
  }
  for (const TrainRun* r : runs_with(s, "sync_methods", model)) {
    if (method_with_mode(*r) != "bucketed" || workloads.count(noise_key(*r)) == 0) continue;
    if (!sizes.insert(size_key(*r)).second) continue;
    runs.push_back(r);
  }
  return runs;
}

}  // namespace

FigureData bucket_sweep(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = bucket_runs(s, model);
  f.table.columns = {"bucket_MB", "backend",    "median_s", "ci95_low_s", "ci95_high_s",
                     "sync_s",    "payload_MB", "low_s",    "high_s"};
  std::vector<std::string> backends;
  std::map<std::string, std::vector<std::pair<std::string, Repeated>>> by_backend;
  for (const TrainRun* r : runs) {
    Repeated judged = repeated_time(s, *r);
    const auto& rank0 = r->record.ranks.at(0);
    double payload = static_cast<double>(rank0.payload_sent_bytes + rank0.payload_received_bytes) /
                     static_cast<double>(r->record.iterations.total_s.size()) / 1e6;
    f.table.rows.push_back({r->record.config.sync_options.bucket_mb, param(*r, "backend"),
                            judged.median_s, judged.ci95_low_s, judged.ci95_high_s,
                            phase_mean(*r, static_cast<size_t>(Phase::sync)), payload, judged.low_s,
                            judged.high_s});
    by_backend[param(*r, "backend")].push_back(
        {fmt::format("{} MB", short_number(r->record.config.sync_options.bucket_mb)), judged});
    if (std::find(backends.begin(), backends.end(), param(*r, "backend")) == backends.end()) {
      backends.push_back(param(*r, "backend"));
    }
  }
  if (runs.empty()) return f;
  sort_numeric(f.table, "bucket_MB");
  f.series = fmt::format("{}", fmt::join(backends, " "));
  f.caption = fmt::format("bucketed: iteration time and exposed sync vs bucket size; {}, {} ranks",
                          model, runs[0]->ranks);
  std::set<double> joined;  // the sizes taken from the methods' runs
  for (const TrainRun* r : runs) {
    if (r->group != "bucket_sweep") joined.insert(r->record.config.sync_options.bucket_mb);
  }
  if (!joined.empty()) {
    std::vector<std::string> mb;
    mb.reserve(joined.size());
    for (double b : joined) mb.push_back(short_number(b) + " MB");
    f.caption += fmt::format(" ({}: the methods' bucketed run)", fmt::join(mb, ", "));
  }
  for (const auto& [backend, rows] : by_backend) {
    f.sentences.push_back(ranking_sentence("Over " + backend, "bucket size", rows));
  }
  f.sentences.push_back(fmt::format(
      "The payload per iteration is the same for every bucket size ({} MB sent + received by "
      "rank 0): buckets change when bytes move, not how many.",
      short_number(f.table.number(0, "payload_MB"))));
  return f;
}

}  // namespace dtbench::report
