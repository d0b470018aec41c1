#include "report/traces/stragglers.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "report/traces/trace_facts.h"

namespace dtbench {

Stragglers stragglers_of(const nlohmann::json& events) {
  // Per rank: its iteration spans, and the start of every communication operation.
  const auto iterations = iteration_spans(events);
  std::map<int, std::vector<double>> starts;
  for (const auto& e : events) {
    const std::string ph = e.value("ph", "");
    if (e.value("cat", "") == "comm" && (ph == "X" || ph == "b")) {
      starts[e.value("pid", 0)].push_back(e.value("ts", 0.0));
    }
  }
  Stragglers out;
  out.ranks = static_cast<int>(iterations.size());
  if (out.ranks < 2) return out;
  for (auto& [rank, v] : starts) std::sort(v.begin(), v.end());
  size_t count = iterations.begin()->second.size();
  for (const auto& [rank, v] : iterations) count = std::min(count, v.size());
  out.last_count.assign(static_cast<size_t>(out.ranks), 0);
  // Per iteration: each rank's operations in it, matched by their order.
  std::vector<std::vector<std::vector<double>>> arrivals;  // iteration -> rank -> starts
  for (size_t k = 0; k < count; ++k) {
    std::vector<std::vector<double>> per_rank;
    size_t ops = 0;
    bool matched = true;
    for (const auto& [rank, spans] : iterations) {
      const auto [begin, end] = spans[k];
      std::vector<double> mine;
      for (double t : starts[rank]) {
        if (t >= begin && t < end) mine.push_back(t);
      }
      if (per_rank.empty()) ops = mine.size();
      matched = matched && mine.size() == ops && ops > 0;
      per_rank.push_back(std::move(mine));
    }
    if (!matched) continue;
    int last = 0;  // at the iteration's first operation
    for (int r = 1; r < out.ranks; ++r) {
      if (per_rank[r][0] > per_rank[last][0]) last = r;
    }
    ++out.last_count[static_cast<size_t>(last)];
    arrivals.push_back(std::move(per_rank));
  }
  out.iterations = static_cast<int>(arrivals.size());
  if (out.iterations == 0) return out;
  out.straggler = static_cast<int>(std::max_element(out.last_count.begin(), out.last_count.end()) -
                                   out.last_count.begin());
  const auto s = static_cast<size_t>(out.straggler);
  double wait = 0;
  for (const auto& per_rank : arrivals) {
    double sum = 0;
    for (size_t r = 0; r < per_rank.size(); ++r) {
      if (r != s) sum += std::max(0.0, per_rank[s][0] - per_rank[r][0]);
    }
    wait += sum / (out.ranks - 1);
  }
  out.others_wait_s = wait / 1e6 / out.iterations;  // trace times are microseconds
  return out;
}

std::string stragglers_text(const Stragglers& s) {
  if (s.straggler < 0) return "";
  const int last = s.last_count[static_cast<size_t>(s.straggler)];
  if (2 * last <= s.iterations) {
    return fmt::format(
        "no rank arrived last in most iterations (most often rank {}, in {} of {}; "
        "the others waited {:.3f} s per iteration for it)",
        s.straggler, last, s.iterations, s.others_wait_s);
  }
  return fmt::format(
      "rank {} arrived last in {} of {} iterations; the others waited {:.3f} s per "
      "iteration for it",
      s.straggler, last, s.iterations, s.others_wait_s);
}

}  // namespace dtbench
