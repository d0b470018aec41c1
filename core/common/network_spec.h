#pragma once
// The emulated cluster's network as a spec (what `dtbench cluster up` builds and system.json
// records under "network"), and link rates as tc writes them. Plain data: the harness builds
// the cluster from it (harness/cluster/cluster.h), the report and the cost model read it back.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace dtbench {

struct ClusterSpec {
  int hosts = 4;
  std::string prefix = "dtb-";
  std::string subnet = "10.99.0";
  std::string rate = "1gbit";   // every link; "none": unshaped
  std::string delay = "0.1ms";  // "none" or "0": no delay
  int bottleneck_host = -1;     // this host's link gets bottleneck_rate instead
  std::string bottleneck_rate = "100mbit";

  nlohmann::json to_json() const;
  static ClusterSpec from_json(const nlohmann::json& j);
  std::string namespace_of(int host) const { return prefix + "n" + std::to_string(host); }
  std::string address_of(int host) const { return subnet + "." + std::to_string(host + 1); }
};

// The emulated cluster's spec as system.json recorded it ({"network": {"spec": ...}}); nullopt for
// the hosts' own network. The one reader of that record: the report and predict go through it.
std::optional<ClusterSpec> recorded_network(const nlohmann::json& system);

// "1gbit", "100mbit", "500kbit", "8000bit" -> bits per second; UserError otherwise.
double parse_rate(const std::string& rate);

}  // namespace dtbench
