#include "train/start_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/units.h"

namespace dtbench {

namespace {

// A host's links all below this share of the fastest link's rate make it slow.
constexpr double kSlowShare = 0.5;

std::string host_of(const RunRecord& record, int rank) {
  for (const auto& r : record.ranks) {
    if (r.rank == rank) return r.host;
  }
  return fmt::format("rank {}", rank);
}

std::string mb_per_s(double bytes_per_s) {
  return fmt::format("{:.1f} MB/s", bytes_per_s / 1e6);
}

}  // namespace

LinkFinding link_finding(const RunRecord& record) {
  LinkFinding f;
  double fastest = 0;
  for (const auto& l : record.links) {
    if (l.seconds <= 0) continue;
    f.bytes = l.bytes;
    f.links.push_back({host_of(record, l.a), host_of(record, l.b),
                       2.0 * static_cast<double>(l.bytes) / l.seconds});
    fastest = std::max(fastest, f.links.back().bytes_per_s);
  }
  std::vector<std::string> hosts;
  for (const auto& l : f.links) {
    for (const auto& h : {l.a, l.b}) {
      if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
    }
  }
  for (const auto& h : hosts) {
    double own = 0, others = 0;
    for (const auto& l : f.links) {
      double& best = (l.a == h || l.b == h) ? own : others;
      best = std::max(best, l.bytes_per_s);
    }
    if (others > 0 && own < kSlowShare * fastest) {
      f.slow_host = h;
      f.slow_bytes_per_s = own;
      f.others_bytes_per_s = others;
    }
  }
  return f;
}

std::string link_finding_text(const LinkFinding& f) {
  if (f.links.empty()) return "";
  std::string text = fmt::format("links between hosts at start-up ({} each way):",
                                 f.bytes % kMiB == 0 ? fmt::format("{} MiB", f.bytes / kMiB)
                                                     : fmt::format("{} bytes", f.bytes));
  for (size_t i = 0; i < f.links.size(); ++i) {
    text += fmt::format("{} {}/{} {}", i == 0 ? "" : ",", f.links[i].a, f.links[i].b,
                        mb_per_s(f.links[i].bytes_per_s));
  }
  if (!f.slow_host.empty()) return text + "; " + slow_host_text(f);
  return text + (f.links.size() > 1 ? "; none stands out" : "");
}

std::string slow_host_text(const LinkFinding& f) {
  if (f.slow_host.empty()) return "";
  return fmt::format("{} is slow: {} at most against {} between other hosts", f.slow_host,
                     mb_per_s(f.slow_bytes_per_s), mb_per_s(f.others_bytes_per_s));
}

double worst_misalignment_s(const std::vector<ClockOffset>& clocks) {
  double worst = 0;
  for (const auto& c : clocks) worst = std::max(worst, c.uncertainty_s + std::abs(c.drift_s));
  return worst;
}

double worst_misalignment_s(const RunRecord& record) {
  std::vector<ClockOffset> clocks;
  for (const auto& r : record.ranks) clocks.push_back(r.clock);
  return worst_misalignment_s(clocks);
}

std::string clock_alignment_text(const RunRecord& record) {
  const double worst = worst_misalignment_s(record);
  if (record.ranks.size() < 2 || worst == 0) return "";
  return fmt::format(
      "the ranks' clocks were aligned with rank 0's to within {:.3f} ms (offsets measured by "
      "ping-pongs at start-up, with the drift by the last iteration)",
      worst * 1e3);
}

}  // namespace dtbench
