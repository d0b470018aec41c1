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

}  // namespace dtbench
