// Figure 20, "Each rank's pace": per method, each rank's own iteration time over
// iterations 1..39 (p50, p95, p99, from the record's per-rank samples), and the rank that was
// slowest; the record's iteration time is the slowest rank's, which sets everyone's pace.
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "report/figures/common.h"
#include "report/read/select.h"
#include "stats/rank_stats.h"

namespace dtbench::report {

FigureData rank_pace(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  f.table.columns = {"method", "rank", "host", "p50_s", "p95_s", "p99_s", "slowest"};
  std::string model;
  const auto runs = runs_of(s, "sync_methods", &model);
  std::map<int, int> slowest_count;
  int measured = 0;
  std::vector<std::string> lines;
  for (const TrainRun* r : runs) {
    if (r->kind != "train" || r->record.config.world_size < 2) continue;
    const RankSpread spread = rank_spread(r->record);
    if (spread.ranks.size() < 2) continue;
    ++measured;
    ++slowest_count[spread.slowest];
    const std::string label = engine_label(*r);
    for (const auto& k : spread.ranks) {
      f.table.rows.push_back({label, k.rank, k.host, k.iteration.p50, k.iteration.p95,
                              k.iteration.p99, k.rank == spread.slowest ? "yes" : ""});
    }
    lines.push_back(fmt::format("{}: {}", label, rank_spread_text(spread)));
  }
  if (measured == 0) return {};
  f.caption = fmt::format(
      "Each rank's own iteration time, iterations {}..{}: the bar its median (p50), the whisker "
      "up to its p99, the point its p95; {}",
      kTimedFirst, kTimedLast, model_caption(model, *runs.front()));
  int most = -1;
  for (const auto& [rank, count] : slowest_count) {
    if (most < 0 || count > slowest_count[most]) most = rank;
  }
  f.sentences.push_back(fmt::format(
      "Rank {} is the slowest by its median in {} of {} methods here{}.", most, slowest_count[most],
      measured, slowest_count[most] * 2 > measured ? "" : ": no rank is behind in most of them"));
  f.sentences.push_back(fmt::format("Per method: {}.", fmt::join(lines, "; ")));
  return f;
}

}  // namespace dtbench::report
