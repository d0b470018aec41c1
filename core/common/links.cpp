#include "common/links.h"

#include <fmt/format.h>

#include <algorithm>

#include "stats/stats.h"

namespace dtbench {

double payload_bytes_per_s(double line_bits_per_s) {
  return line_bits_per_s / 8 * 1448.0 / 1514.0;
}

double payload_bytes_per_s(const std::string& line_rate) {
  return payload_bytes_per_s(parse_rate(line_rate));
}

int64_t tbf_burst_bytes(double line_bits_per_s) {
  return static_cast<int64_t>(std::max(32768.0, line_bits_per_s / 8 * 0.002));
}

double burst_payload_bytes(const std::string& line_rate) {
  return payload_bytes_per_s(8.0 * static_cast<double>(tbf_burst_bytes(parse_rate(line_rate))));
}

StatedRate stated_rate(const std::optional<ClusterSpec>& cluster, const std::string& hosts_rate) {
  StatedRate out;
  if (cluster) {
    if (cluster->rate.empty() || cluster->rate == "none") return out;
    out.link_bytes_per_s = payload_bytes_per_s(cluster->rate);
    out.slowest_bytes_per_s = out.link_bytes_per_s;
    out.link_burst_bytes = out.slowest_burst_bytes = burst_payload_bytes(cluster->rate);
    out.source = fmt::format("the emulated cluster's {}", cluster->rate);
    if (cluster->bottleneck_host >= 0) {
      const double slow = payload_bytes_per_s(cluster->bottleneck_rate);
      if (slow < out.link_bytes_per_s) {
        out.slowest_burst_bytes = burst_payload_bytes(cluster->bottleneck_rate);
      }
      out.slowest_bytes_per_s = std::min(out.link_bytes_per_s, slow);
      out.source +=
          fmt::format(", host {} at {}", cluster->bottleneck_host, cluster->bottleneck_rate);
    }
  } else if (!hosts_rate.empty()) {
    out.link_bytes_per_s = out.slowest_bytes_per_s = payload_bytes_per_s(hosts_rate);
    out.source = fmt::format("the hosts file's {}", hosts_rate);
  }
  return out;
}

StatedRate stated_rate(const nlohmann::json& system) {
  const bool states = system.is_object() && system.contains("stated_link_rate");
  return stated_rate(recorded_network(system),
                     states ? system["stated_link_rate"].get<std::string>() : "");
}

std::string mb_per_s(double bytes_per_s) {
  return fmt::format("{:.1f} MB/s", bytes_per_s / 1e6);
}

double SlowHosts::others_share() const {
  std::vector<double> others;
  for (size_t h = 0; h < host_share.size(); ++h) {
    if (std::find(slow.begin(), slow.end(), static_cast<int>(h)) == slow.end()) {
      others.push_back(host_share[h]);
    }
  }
  return others.empty() ? 0 : percentile(others, 50);
}

SlowHosts slow_hosts(int hosts, const std::vector<MeasuredLink>& links, double stated) {
  SlowHosts out;
  for (const auto& l : links) out.reference = std::max(out.reference, l.bytes_per_s);
  if (stated > 0) out.reference = stated;
  std::vector<std::vector<double>> touching(static_cast<size_t>(hosts));
  for (const auto& l : links) {
    touching.at(static_cast<size_t>(l.a)).push_back(l.bytes_per_s);
    touching.at(static_cast<size_t>(l.b)).push_back(l.bytes_per_s);
  }
  for (int h = 0; h < hosts; ++h) {
    const auto& own = touching[static_cast<size_t>(h)];
    const double fastest = own.empty() ? 0 : *std::max_element(own.begin(), own.end());
    out.host_share.push_back(out.reference > 0 ? fastest / out.reference : 0);
    if (!own.empty() && is_slow(fastest, out.reference)) out.slow.push_back(h);
  }
  return out;
}

}  // namespace dtbench
