#include "report/traces/stragglers.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "report/traces/trace_facts.h"

namespace dtbench {

namespace {

// Each rank's compute (seconds) in each of the iterations every rank traced.
std::vector<std::vector<double>> compute_per_iteration(const nlohmann::json& events) {
  const auto iterations = iteration_spans(events);  // rank -> [begin, end), in order
  size_t steps = iterations.empty() ? 0 : SIZE_MAX;
  for (const auto& [rank, spans] : iterations) steps = std::min(steps, spans.size());
  std::map<int, std::vector<double>> per_rank;
  for (const auto& [rank, spans] : iterations) per_rank[rank].assign(steps, 0.0);
  for (const auto& e : events) {
    const std::string name = e.value("name", "");
    if (e.value("ph", "") != "X" || (name != "data" && name != "forward" && name != "backward")) {
      continue;
    }
    const int rank = e.value("pid", 0);
    auto spans = iterations.find(rank);
    if (spans == iterations.end()) continue;
    const double begin = e.value("ts", 0.0), end = begin + e.value("dur", 0.0);
    for (size_t k = 0; k < steps; ++k) {
      const auto [first, last] = spans->second[k];
      if (begin >= first && end <= last) per_rank[rank][k] += (end - begin) * 1e-6;
    }
  }
  std::vector<std::vector<double>> out;
  out.reserve(per_rank.size());
  for (auto& [rank, compute] : per_rank) out.push_back(std::move(compute));
  return out;
}

}  // namespace

Stragglers stragglers_of(const nlohmann::json& events) {
  const std::vector<std::vector<double>> compute = compute_per_iteration(events);
  Stragglers out;
  out.ranks = static_cast<int>(compute.size());
  if (out.ranks < 2 || compute.front().empty()) return out;
  const size_t n = compute.size(), steps = compute.front().size();
  out.iterations = static_cast<int>(steps);
  out.longest_count.assign(n, 0);
  double over_mean = 0;
  for (size_t k = 0; k < steps; ++k) {
    size_t longest = 0;
    double total = 0;
    for (size_t r = 0; r < n; ++r) {
      total += compute[r][k];
      if (compute[r][k] > compute[longest][k]) longest = r;
    }
    ++out.longest_count[longest];
    over_mean += compute[longest][k] - total / static_cast<double>(n);
  }
  out.over_mean_s = over_mean / static_cast<double>(steps);
  const auto s =
      static_cast<size_t>(std::max_element(out.longest_count.begin(), out.longest_count.end()) -
                          out.longest_count.begin());
  out.straggler = static_cast<int>(s);
  double wait = 0;
  for (size_t k = 0; k < steps; ++k) {
    for (size_t r = 0; r < n; ++r) {
      if (r != s) wait += std::max(0.0, compute[s][k] - compute[r][k]);
    }
  }
  out.others_wait_s = wait / static_cast<double>((n - 1) * steps);
  return out;
}

std::string stragglers_text(const Stragglers& s) {
  if (s.straggler < 0) return "";
  const int longest = s.longest_count[static_cast<size_t>(s.straggler)];
  if (2 * longest <= s.iterations) {
    return fmt::format(
        "no rank computed longest in most iterations (most often rank {}, in {} of {}; "
        "the others waited {:.3f} s per iteration for it)",
        s.straggler, longest, s.iterations, s.others_wait_s);
  }
  return fmt::format(
      "rank {} computed longest in {} of {} iterations; the others waited {:.3f} s per "
      "iteration for it",
      s.straggler, longest, s.iterations, s.others_wait_s);
}

}  // namespace dtbench
