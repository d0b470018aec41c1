// Figure 5, "CPU and memory": its table, caption and sentences, drawn by fig05_cpu_memory.gp.
#include <fmt/format.h>

#include <algorithm>

#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData cpu_memory(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "sync_methods", &model);
  f.table.columns = {"method", "cpu_utilisation", "peak_rss_MB"};
  for (const TrainRun* r : runs) {
    double cpu = 0, rss = 0;
    for (const auto& rank : r->record.ranks) {
      cpu += rank.usage.cpu_utilisation / static_cast<double>(r->record.ranks.size());
      rss = std::max(rss, mb(static_cast<double>(rank.usage.peak_rss_bytes)));
    }
    f.table.rows.push_back({method_label(*r), cpu, rss});
  }
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "CPU utilisation (mean over ranks of (user + system) / wall / cores, "
      "whole run) and peak resident memory (largest rank); {}",
      model_caption(model, *runs[0]));
  auto [low, high] = f.table.extremes("peak_rss_MB");
  f.sentences.push_back(
      fmt::format("Peak memory ranged from {} MB ({}) to {} MB ({}).",
                  short_number(f.table.number(low, "peak_rss_MB")), f.table.text(low, "method"),
                  short_number(f.table.number(high, "peak_rss_MB")), f.table.text(high, "method")));
  return f;
}

}  // namespace dtbench::report
