// Figure 14, "Memory allocator": its table, caption and sentences, drawn by fig14_allocator.gp.
//
// What the malloc setting is worth on this machine: page faults and time per iteration with
// glibc's defaults and with freed memory kept in the process (core/common/allocator.h).
// Both depend on the kernel, the hypervisor and transparent huge pages, so they are measured
// here, side by side in the same rounds, and never asserted by a test.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

namespace {

// Mean over ranks of each rank's mean minor faults per iteration in the timed window; NaN for
// records written before faults were counted.
double faults_per_iteration(const TrainRun& r) {
  double sum = 0;
  int ranks = 0;
  for (const auto& rank : r.record.ranks) {
    if (rank.iteration_minor_faults.empty()) continue;
    std::vector<double> faults;
    for (int64_t n : rank.iteration_minor_faults) faults.push_back(static_cast<double>(n));
    sum += summarize(window(faults, kTimedFirst, kTimedLast)).mean;
    ++ranks;
  }
  return ranks > 0 ? sum / ranks : std::nan("");
}

std::string setting_of(const TrainRun& r) {
  std::string malloc = r.record.system.value("malloc", "?");
  if (malloc.rfind("keep freed memory", 0) == 0) return "keep";
  if (malloc == "glibc default") return "glibc";
  return malloc;
}

}  // namespace

FigureData allocator(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "allocator", &model);
  f.table.columns = {"method",   "malloc", "ranks",  "faults_per_iteration",
                     "median_s", "low_s",  "high_s", "reps"};
  std::map<std::string, std::map<std::string, std::pair<double, Repeated>>> by_method;
  for (const TrainRun* r : runs) {
    Repeated t = repeated_time(s, *r);
    double faults = faults_per_iteration(*r);
    f.table.rows.push_back({method_label(*r), setting_of(*r), r->ranks, faults, t.median_s, t.low_s,
                            t.high_s, t.reps});
    by_method[method_label(*r)][setting_of(*r)] = {faults, t};
  }
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Minor page faults per iteration (mean over ranks, iterations {}..{}) and iteration time "
      "(median over repetitions, range as whiskers) with glibc's malloc defaults and with freed "
      "memory kept in the process; {}, global batch {}",
      kTimedFirst, kTimedLast, model, runs[0]->record.config.global_batch);
  for (const auto& [method, settings] : by_method) {
    auto glibc = settings.find("glibc"), keep = settings.find("keep");
    if (glibc == settings.end() || keep == settings.end()) continue;
    const Repeated& a = glibc->second.second;
    const Repeated& b = keep->second.second;
    f.sentences.push_back(fmt::format(
        "{}: an iteration faulted in {} pages with glibc's defaults and {} with freed memory "
        "kept, and took {} s against {} s ({}x, ratio within rounds {}); {}.",
        method, short_number(glibc->second.first), short_number(keep->second.first),
        short_number(a.median_s), short_number(b.median_s), short_number(b.median_s / a.median_s),
        short_number(ratio_within_rounds(b, a)),
        stands_out(a, b) ? "the difference stands out of the noise"
                         : "the difference is within the noise"));
  }
  f.sentences.push_back(
      "What a page fault costs depends on the kernel, the hypervisor and transparent huge "
      "pages: these numbers are this system's.");
  return f;
}

}  // namespace dtbench::report
