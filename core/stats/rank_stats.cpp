#include "stats/rank_stats.h"

#include <fmt/format.h>

#include <algorithm>

#include "stats/stats.h"

namespace dtbench {

Percentiles percentiles_of(const std::vector<double>& values) {
  if (values.empty()) return {};
  return {percentile(values, 50), percentile(values, 95), percentile(values, 99)};
}

RankSpread rank_spread(const RunRecord& record) {
  RankSpread out;
  for (const auto& r : record.ranks) {
    if (r.iteration_s.empty()) continue;
    RankStats s;
    s.rank = r.rank;
    s.host = r.host;
    s.iteration = percentiles_of(window(r.iteration_s, kTimedFirst, kTimedLast));
    s.has_phases = !r.phase_s[0].empty();
    for (size_t p = 0; p < kPhaseCount; ++p) {
      s.phase[p] = percentiles_of(window(r.phase_s[p], kTimedFirst, kTimedLast));
    }
    if (s.has_phases) {
      std::vector<double> compute(r.phase_s[0].size());
      for (size_t k = 0; k < compute.size(); ++k) {
        compute[k] = r.phase_s[0][k] + r.phase_s[1][k] + r.phase_s[2][k];  // data, fwd, bwd
      }
      s.compute = percentiles_of(window(compute, kTimedFirst, kTimedLast));
    }
    out.ranks.push_back(s);
  }
  std::sort(out.ranks.begin(), out.ranks.end(),
            [](const RankStats& a, const RankStats& b) { return a.rank < b.rank; });
  if (out.ranks.empty()) return out;
  const auto by_p50 = [](const RankStats& a, const RankStats& b) {
    return a.iteration.p50 < b.iteration.p50;
  };
  const auto fastest = std::min_element(out.ranks.begin(), out.ranks.end(), by_p50);
  const auto slowest = std::max_element(out.ranks.begin(), out.ranks.end(), by_p50);
  out.fastest = fastest->rank;
  out.slowest = slowest->rank;
  out.spread = fastest->iteration.p50 > 0 ? slowest->iteration.p50 / fastest->iteration.p50 - 1 : 0;
  if (out.ranks.size() < 2 || !out.ranks[0].has_phases) return out;
  const auto behind =
      std::max_element(out.ranks.begin(), out.ranks.end(),
                       [](const auto& a, const auto& b) { return a.compute.p50 < b.compute.p50; });
  std::vector<double> others_compute, others_sync;
  for (const auto& r : out.ranks) {
    if (r.rank == behind->rank) continue;
    others_compute.push_back(r.compute.p50);
    others_sync.push_back(r.phase[3].p50);  // sync
  }
  out.behind = behind->rank;
  out.behind_by_s = behind->compute.p50 - percentile(others_compute, 50);
  out.others_wait_s = percentile(others_sync, 50) - behind->phase[3].p50;
  return out;
}

std::string rank_spread_text(const RankSpread& s) {
  if (s.ranks.empty()) return "";
  double low = s.ranks[0].iteration.p50, high = low, p99 = 0;
  std::string host;
  for (const auto& r : s.ranks) {
    low = std::min(low, r.iteration.p50);
    high = std::max(high, r.iteration.p50);
    p99 = std::max(p99, r.iteration.p99);
    if (r.rank == s.slowest) host = r.host;
  }
  if (s.ranks.size() == 1) return fmt::format("p50 {:.3f} s, p99 {:.3f} s", high, p99);
  std::string text =
      fmt::format("ranks' p50 {:.3f}-{:.3f} s ({:+.1f}%), slowest rank {} ({}), p99 {:.3f} s", low,
                  high, 100 * s.spread, s.slowest, host, p99);
  if (s.behind < 0) return text;
  std::string behind_host;
  for (const auto& r : s.ranks) {
    if (r.rank == s.behind) behind_host = r.host;
  }
  text += fmt::format("; rank {} ({}) computes longest, {:+.3f} s over the others' median, ",
                      s.behind, behind_host, s.behind_by_s);
  // Rounded to the millisecond shown: no longer wait is not a negative one.
  return text + (s.others_wait_s >= 0.0005
                     ? fmt::format("and they wait {:.3f} s longer in sync", s.others_wait_s)
                     : std::string("and the others wait no longer in sync"));
}

void print_rank_table(const RunRecord& record) {
  const RankSpread s = rank_spread(record);
  if (s.ranks.empty()) return;
  fmt::print("Per rank, iterations {}-{}, p50/p95/p99 (s):\n", kTimedFirst, kTimedLast);
  const auto three = [](const Percentiles& p) {
    return fmt::format("{:.3f}/{:.3f}/{:.3f}", p.p50, p.p95, p.p99);
  };
  for (const auto& r : s.ranks) {
    std::string line =
        fmt::format("  rank {} ({}): iteration {}", r.rank, r.host, three(r.iteration));
    for (size_t p = 0; r.has_phases && p < kPhaseCount; ++p) {
      line += fmt::format("  {} {}", kPhaseNames[p], three(r.phase[p]));
    }
    fmt::print("{}\n", line);
  }
  fmt::print("  {}\n", rank_spread_text(s));
}

}  // namespace dtbench
