#include "record/start_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/links.h"
#include "common/text.h"

namespace dtbench {

namespace {

std::string host_of(const RunRecord& record, int rank) {
  for (const auto& r : record.ranks) {
    if (r.rank == rank) return r.host;
  }
  return fmt::format("rank {}", rank);
}

}  // namespace

LinkFinding link_finding(const RunRecord& record) {
  LinkFinding f;
  for (const auto& l : record.links) {
    if (l.seconds <= 0) continue;
    f.bytes = l.bytes;
    f.links.push_back({host_of(record, l.a), host_of(record, l.b),
                       2.0 * static_cast<double>(l.bytes) / l.seconds});
  }
  std::vector<std::string> hosts;
  const auto index_of = [&hosts](const std::string& h) {
    auto at = std::find(hosts.begin(), hosts.end(), h);
    if (at == hosts.end()) at = hosts.insert(hosts.end(), h);
    return static_cast<int>(at - hosts.begin());
  };
  std::vector<MeasuredLink> measured;
  for (const auto& l : f.links) measured.push_back({index_of(l.a), index_of(l.b), l.bytes_per_s});
  // No rate is stated to the trainer: the fastest link measured is the reference.
  const SlowHosts slow = slow_hosts(static_cast<int>(hosts.size()), measured, 0);
  if (!slow.slow.empty() && !slow.all()) {
    f.slow_host = hosts[static_cast<size_t>(slow.slow.front())];
    f.slow_bytes_per_s = slow.host_share[static_cast<size_t>(slow.slow.front())] * slow.reference;
    f.others_bytes_per_s = slow.others_share() * slow.reference;
  }
  return f;
}

std::string link_finding_text(const LinkFinding& f) {
  if (f.links.empty()) return "";
  std::string text =
      fmt::format("links between hosts at start-up ({} each way):", binary_size_text(f.bytes));
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
