#include "report/traces/overlap.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "report/traces/trace_facts.h"

namespace dtbench {
namespace {

using Intervals = std::vector<std::pair<double, double>>;

// Sorted, overlapping ones merged.
Intervals merged(Intervals v) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& [b, e] : v) {
    if (!out.empty() && b <= out.back().second) {
      out.back().second = std::max(out.back().second, e);
    } else {
      out.emplace_back(b, e);
    }
  }
  return out;
}

double length(const Intervals& v) {
  double sum = 0;
  for (const auto& [b, e] : v) sum += e - b;
  return sum;
}

// The length of the intersection of two merged lists.
double common(const Intervals& a, const Intervals& b) {
  double sum = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    sum += std::max(0.0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return sum;
}

}  // namespace

OverlapShare overlap_of(const nlohmann::json& events) {
  std::map<int, Intervals> comm, compute, backward;
  std::map<int, std::vector<double>> ready;          // per rank: gradients' arrivals
  std::map<std::tuple<int, int64_t>, double> begun;  // (rank, id) -> launch
  for (const auto& e : events) {
    const std::string ph = e.value("ph", ""), cat = e.value("cat", ""), name = e.value("name", "");
    const int rank = e.value("pid", 0);
    const double ts = e.value("ts", 0.0);
    if (ph == "X" && cat == "phase" && name != "sync") {
      (name == "backward" ? backward : compute)[rank].emplace_back(ts, ts + e.value("dur", 0.0));
    }
    if (ph == "i" && name == "gradient ready") ready[rank].push_back(ts);
    if (cat != "comm") continue;
    if (ph == "X") comm[rank].emplace_back(ts, ts + e.value("dur", 0.0));
    if (ph == "b") begun[{rank, e.value("id", int64_t{0})}] = ts;
    if (ph == "e") {
      const auto it = begun.find({rank, e.value("id", int64_t{0})});
      if (it != begun.end()) comm[rank].emplace_back(it->second, ts);
    }
  }
  // Backward computes until its last gradient is ready; what follows inside it is a wait (the DDP
  // engine waits for its buckets in backward's final callback), not compute.
  for (auto& [rank, spans] : backward) {
    std::vector<double>& arrivals = ready[rank];
    std::sort(arrivals.begin(), arrivals.end());
    for (auto [begin, end] : spans) {
      const auto after = std::upper_bound(arrivals.begin(), arrivals.end(), end);
      if (after != arrivals.begin() && *std::prev(after) >= begin) end = *std::prev(after);
      compute[rank].emplace_back(begin, end);
    }
  }
  OverlapShare out;
  double comm_us = 0, hidden_us = 0;
  for (const auto& [rank, spans] : iteration_spans(events)) {
    const Intervals c = merged(comm[rank]), k = merged(compute[rank]);
    comm_us += length(c);
    hidden_us += common(c, k);
    out.iterations += static_cast<int>(spans.size());
  }
  if (out.iterations > 0) {
    out.comm_s = comm_us / 1e6 / out.iterations;
    out.hidden_s = hidden_us / 1e6 / out.iterations;
  }
  return out;
}

std::string overlap_share_text(const OverlapShare& o) {
  if (o.comm_s <= 0) {
    return "its trace holds no communication (a c10d_ddp trace from before the traced runs timed "
           "the Reducer's buckets)";
  }
  return fmt::format(
      "communication {:.3f} s per iteration and rank, {:.0f}% hidden behind compute, {:.3f} s "
      "exposed",
      o.comm_s, 100 * o.hidden_share(), o.exposed());
}

}  // namespace dtbench
