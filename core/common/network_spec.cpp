#include "common/network_spec.h"

#include <fmt/format.h>

#include <regex>

#include "common/error.h"

namespace dtbench {

nlohmann::json ClusterSpec::to_json() const {
  return {{"hosts", hosts},
          {"prefix", prefix},
          {"subnet", subnet},
          {"rate", rate},
          {"delay", delay},
          {"bottleneck_host", bottleneck_host},
          {"bottleneck_rate", bottleneck_rate}};
}

ClusterSpec ClusterSpec::from_json(const nlohmann::json& j) {
  ClusterSpec s;
  s.hosts = j.value("hosts", s.hosts);
  s.prefix = j.value("prefix", s.prefix);
  s.subnet = j.value("subnet", s.subnet);
  s.rate = j.value("rate", s.rate);
  s.delay = j.value("delay", s.delay);
  s.bottleneck_host = j.value("bottleneck_host", s.bottleneck_host);
  s.bottleneck_rate = j.value("bottleneck_rate", s.bottleneck_rate);
  return s;
}

std::optional<ClusterSpec> recorded_network(const nlohmann::json& system) {
  if (!system.is_object() || !system.contains("network")) return std::nullopt;
  const auto& network = system["network"];
  if (!network.is_object() || !network.contains("spec")) return std::nullopt;
  return ClusterSpec::from_json(network["spec"]);
}

double parse_rate(const std::string& rate) {
  static const std::regex form("([0-9]+(\\.[0-9]+)?)(bit|kbit|mbit|gbit)");
  std::smatch m;
  require(std::regex_match(rate, m, form) && std::stod(m[1]) > 0,
          fmt::format("link rate '{}' is not like 1gbit, 100mbit or 500kbit", rate));
  double scale = m[3] == "gbit" ? 1e9 : m[3] == "mbit" ? 1e6 : m[3] == "kbit" ? 1e3 : 1;
  return std::stod(m[1]) * scale;
}

}  // namespace dtbench
