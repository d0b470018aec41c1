#include "report/traces/trace_facts.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "common/files.h"

namespace dtbench {

nlohmann::json trace_events(const std::string& path) {
  if (path.empty()) return nlohmann::json::array();
  const std::vector<uint8_t> text = read_maybe_gzipped(path);
  nlohmann::json trace = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!trace.is_object() || !trace.contains("traceEvents")) return nlohmann::json::array();
  return std::move(trace["traceEvents"]);
}

TraceFacts trace_facts_of(const nlohmann::json& events) {
  TraceFacts out;
  if (events.empty()) return out;
  out.straggler_s.push_back(mean_straggler_s(events));
  std::map<int, std::vector<std::pair<double, double>>> backward;  // rank -> [begin, end)
  for (const auto& e : events) {
    if (e.value("ph", "") == "X" && e.value("name", "") == "backward") {
      double ts = e.value("ts", 0.0);
      backward[e.value("pid", 0)].emplace_back(ts, ts + e.value("dur", 0.0));
    }
  }
  for (const auto& e : events) {
    if (e.value("ph", "") != "i" || e.value("name", "") != "gradient ready") continue;
    const double ts = e.value("ts", 0.0);
    const auto& args = e.value("args", nlohmann::json::object());
    const size_t p = args.value("parameter", size_t{0});
    for (const auto& [begin, end] : backward[e.value("pid", 0)]) {
      if (ts < begin || ts > end || end <= begin) continue;
      if (out.sum.size() <= p) {
        out.sum.resize(p + 1);
        out.bytes.resize(p + 1);
        out.count.resize(p + 1);
      }
      out.sum[p] += (ts - begin) / (end - begin);
      out.bytes[p] = args.value("bytes", 0.0);
      ++out.count[p];
    }
  }
  return out;
}

void add_facts(const TraceFacts& one, TraceFacts& out) {
  out.straggler_s.insert(out.straggler_s.end(), one.straggler_s.begin(), one.straggler_s.end());
  if (out.sum.size() < one.sum.size()) {
    out.sum.resize(one.sum.size());
    out.bytes.resize(one.sum.size());
    out.count.resize(one.sum.size());
  }
  for (size_t p = 0; p < one.sum.size(); ++p) {
    out.sum[p] += one.sum[p];
    if (one.count[p] > 0) out.bytes[p] = one.bytes[p];
    out.count[p] += one.count[p];
  }
}

std::map<int, std::vector<std::pair<double, double>>> iteration_spans(
    const nlohmann::json& events) {
  std::map<int, std::vector<std::pair<double, double>>> out;
  for (const auto& e : events) {
    if (e.value("ph", "") != "X" || e.value("name", "") != "iteration") continue;
    const double ts = e.value("ts", 0.0);
    out[e.value("pid", 0)].emplace_back(ts, ts + e.value("dur", 0.0));
  }
  for (auto& [rank, spans] : out) std::sort(spans.begin(), spans.end());
  return out;
}

double mean_straggler_s(const nlohmann::json& events) {
  auto iterations = iteration_spans(events);                       // rank -> [begin, end]
  std::vector<std::pair<int, std::pair<double, double>>> compute;  // rank, [begin, end]
  for (const auto& e : events) {
    if (e.value("ph", "") != "X") continue;
    const std::string name = e.value("name", "");
    const double ts = e.value("ts", 0.0), end = ts + e.value("dur", 0.0);
    if (name == "data" || name == "forward" || name == "backward") {
      compute.push_back({e.value("pid", 0), {ts, end}});
    }
  }
  // The k-th iteration of every rank is the same step (each rank traces the same iterations).
  std::map<int, std::vector<double>> per_rank;
  size_t steps = SIZE_MAX;
  for (const auto& [rank, spans] : iterations) {
    per_rank[rank].assign(spans.size(), 0.0);
    steps = std::min(steps, spans.size());
  }
  for (const auto& [rank, span] : compute) {
    auto& spans = iterations[rank];
    for (size_t k = 0; k < spans.size(); ++k) {
      if (span.first >= spans[k].first && span.second <= spans[k].second) {
        per_rank[rank][k] += (span.second - span.first) * 1e-6;
      }
    }
  }
  if (per_rank.size() < 2 || steps == 0) return 0;
  double sum = 0;
  for (size_t k = 0; k < steps; ++k) {
    double slowest = 0, total = 0;
    for (const auto& [rank, c] : per_rank) slowest = std::max(slowest, c[k]), total += c[k];
    sum += slowest - total / static_cast<double>(per_rank.size());
  }
  return sum / static_cast<double>(steps);
}

}  // namespace dtbench
