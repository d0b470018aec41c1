#include "cluster/cluster.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cluster/cluster_slurm.h"
#include "cluster/cluster_ssh.h"
#include "cluster/node_files.h"
#include "common/error.h"
#include "common/files.h"
#include "common/links.h"
#include "common/poll.h"
#include "common/process.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

std::string state_path(const std::string& prefix) {
  return "/run/dtbench/" + prefix + "cluster.json";
}

void require_root_and_iproute2() {
  require(geteuid() == 0,
          "the emulated cluster needs root (network namespaces, tc): run it as root or with sudo");
  std::string out;
  bool have = false;
  try {
    have = run_captured({"ip", "-V"}, &out) == 0 && run_captured({"tc", "-V"}, &out) == 0;
  } catch (const UserError&) {
  }
  require(have, "the emulated cluster needs iproute2 (ip, tc): `make setup` installs it");
}

bool succeeds(const std::vector<std::string>& argv) {
  std::string out;
  return run_captured(argv, &out) == 0;
}

std::vector<std::string> namespaces_with(const std::string& prefix) {
  std::string out;
  run_captured({"ip", "netns", "list"}, &out);
  std::istringstream in(out);
  std::vector<std::string> found;
  std::regex ours(prefix + "n[0-9]+");
  for (std::string line; std::getline(in, line);) {
    std::string name = line.substr(0, line.find(' '));
    if (std::regex_match(name, ours)) found.push_back(name);
  }
  return found;
}

// Kills what still runs in ns (a live process would keep it, and its veth on the bridge,
// alive) and deletes it; deleting the namespace removes both ends of its veth pair.
void remove_namespace(const std::string& ns) {
  std::string pids;
  run_captured({"ip", "netns", "pids", ns}, &pids);
  std::istringstream in(pids);
  for (int pid; in >> pid;) kill(pid, SIGKILL);
  run_checked({"ip", "netns", "del", ns});
}

bool is_off(const std::string& value) {
  return value.empty() || value == "none" || value == "0";
}

std::vector<std::string> tbf_args(double bits_per_s) {
  const int64_t bytes = tbf_burst_bytes(bits_per_s);
  int64_t limit = std::max<int64_t>(bytes * 16, 1 << 20);
  return {"tbf",
          "rate",
          fmt::format("{}bit", static_cast<int64_t>(bits_per_s)),
          "burst",
          std::to_string(bytes),
          "limit",
          std::to_string(limit)};
}

// Shapes one device (in namespace ns, or the root namespace when ns is ""). Returns whether
// the delay, if asked for, could be applied.
bool shape_device(const std::string& ns, const std::string& dev, const std::string& rate,
                  const std::string& delay) {
  std::vector<std::string> tc = {"tc"};
  if (!ns.empty()) tc.insert(tc.end(), {"-n", ns});
  auto with = [&](std::vector<std::string> rest) {
    std::vector<std::string> argv = tc;
    argv.insert(argv.end(), rest.begin(), rest.end());
    return argv;
  };
  succeeds(with({"qdisc", "del", "dev", dev, "root"}));  // a clean slate: none is fine too
  if (is_off(rate) && is_off(delay)) return true;
  if (is_off(rate)) {
    return succeeds(with({"qdisc", "add", "dev", dev, "root", "netem", "delay", delay}));
  }
  auto args = with({"qdisc", "add", "dev", dev, "root", "handle", "1:"});
  auto tbf = tbf_args(parse_rate(rate));
  args.insert(args.end(), tbf.begin(), tbf.end());
  run_checked(args);
  if (is_off(delay)) return true;
  return succeeds(with(
      {"qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "netem", "delay", delay}));
}

}  // namespace

nlohmann::json shape_cluster(const ClusterSpec& spec, const NetworkProfile& profile) {
  std::string rate = profile.link_rate.empty() ? spec.rate : profile.link_rate;
  int slow = profile.bottleneck_host >= 0 ? profile.bottleneck_host : spec.bottleneck_host;
  std::string slow_rate =
      profile.bottleneck_host >= 0 ? profile.bottleneck_rate : spec.bottleneck_rate;
  require(slow < spec.hosts,
          fmt::format("bottleneck host {} is not in the {}-host cluster", slow, spec.hosts));
  if (!is_off(rate)) parse_rate(rate);
  if (slow >= 0) parse_rate(slow_rate);
  bool delay_ok = true;
  nlohmann::json links = nlohmann::json::array();
  for (int i = 0; i < spec.hosts; ++i) {
    std::string r = i == slow ? slow_rate : rate;
    delay_ok = shape_device(spec.namespace_of(i), "eth0", r, spec.delay) && delay_ok;
    delay_ok = shape_device("", spec.prefix + "v" + std::to_string(i), r, spec.delay) && delay_ok;
    links.push_back({{"host", spec.address_of(i)}, {"rate", is_off(r) ? "none" : r}});
  }
  return {{"links", links},
          {"delay", is_off(spec.delay) ? "none" : spec.delay},
          {"delay_emulated", is_off(spec.delay) || delay_ok}};
}

void cluster_up(const ClusterSpec& spec, bool ssh, bool slurm) {
  require_root_and_iproute2();
  require(spec.hosts >= 1 && spec.hosts <= 200,
          fmt::format("--hosts {} is not between 1 and 200", spec.hosts));
  const std::string bridge = spec.prefix + "br0";
  if (!succeeds({"ip", "link", "show", "dev", bridge})) {
    run_checked({"ip", "link", "add", bridge, "type", "bridge"});
  }
  run_checked({"ip", "addr", "replace", spec.subnet + ".254/24", "dev", bridge});
  run_checked({"ip", "link", "set", bridge, "up"});
  auto existing = namespaces_with(spec.prefix);
  for (const auto& ns : existing) {  // a smaller cluster than before: drop the extra hosts
    if (std::stoi(ns.substr(spec.prefix.size() + 1)) >= spec.hosts) remove_namespace(ns);
  }
  for (int i = 0; i < spec.hosts; ++i) {
    std::string ns = spec.namespace_of(i), veth = spec.prefix + "v" + std::to_string(i);
    if (std::find(existing.begin(), existing.end(), ns) == existing.end()) {
      run_checked({"ip", "netns", "add", ns});
    }
    // The pair, found by its end in the namespace. A namespace deleted before (by `down`, or
    // by hand) keeps its veth until the kernel has torn it down, later when processes were
    // killed in it, or never while one still holds it: that veth goes first.
    if (!succeeds({"ip", "-n", ns, "link", "show", "dev", "eth0"})) {
      const auto gone = [&] { return !succeeds({"ip", "link", "show", "dev", veth}); };
      if (!gone()) succeeds({"ip", "link", "del", veth});
      require(poll_until(gone, 30),
              fmt::format("{} of an earlier {} is still there after 30 s", veth, ns));
      run_checked({"ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns});
    }
    run_checked({"ip", "link", "set", veth, "master", bridge, "up"});
    run_checked({"ip", "-n", ns, "link", "set", "lo", "up"});
    run_checked({"ip", "-n", ns, "addr", "replace", spec.address_of(i) + "/24", "dev", "eth0"});
    run_checked({"ip", "-n", ns, "link", "set", "eth0", "up"});
  }
  nlohmann::json shaping = shape_cluster(spec, NetworkProfile{});
  nlohmann::json state = {{"spec", spec.to_json()}, {"shaping", shaping}};
  write_file_atomically(state_path(spec.prefix), state.dump(2) + "\n");
  if (ssh) start_ssh(spec);
  if (slurm) start_slurm(spec);
}

void cluster_down(const std::string& prefix) {
  require_root_and_iproute2();
  for (const auto& ns : namespaces_with(prefix)) remove_namespace(ns);
  if (succeeds({"ip", "link", "show", "dev", prefix + "br0"})) {
    run_checked({"ip", "link", "del", prefix + "br0"});
  }
  remove_ssh(prefix);
  remove_slurm(prefix);
  remove_node_files(prefix);
  std::error_code ec;
  fs::remove(state_path(prefix), ec);
}

nlohmann::json cluster_status(const std::string& prefix) {
  auto namespaces = namespaces_with(prefix);
  bool bridge = false;
  try {
    bridge = succeeds({"ip", "link", "show", "dev", prefix + "br0"});
  } catch (const UserError&) {
  }
  nlohmann::json status = {{"up", false}, {"prefix", prefix}};
  std::ifstream in(state_path(prefix));
  nlohmann::json state = nlohmann::json::parse(in, nullptr, false);
  if (!bridge || namespaces.empty() || state.is_discarded()) return status;
  ClusterSpec spec = ClusterSpec::from_json(state["spec"]);
  status["up"] = static_cast<int>(namespaces.size()) == spec.hosts;
  status["spec"] = state["spec"];
  status["delay_emulated"] = state["shaping"].value("delay_emulated", false);
  status["ssh"] = ssh_is_set_up(prefix);
  status["slurm"] = slurm_is_set_up(prefix);
  nlohmann::json hosts = nlohmann::json::array();
  for (int i = 0; i < spec.hosts; ++i) {
    std::string qdisc;
    run_captured({"tc", "-n", spec.namespace_of(i), "qdisc", "show", "dev", "eth0"}, &qdisc);
    hosts.push_back({{"namespace", spec.namespace_of(i)},
                     {"address", spec.address_of(i)},
                     {"qdisc", first_line(qdisc)}});
  }
  status["hosts"] = hosts;
  return status;
}

ClusterSpec current_cluster(const std::string& prefix) {
  nlohmann::json status = cluster_status(prefix);
  require(
      status["up"].get<bool>(),
      fmt::format("the emulated cluster ({}*) is not up: run `make cluster-up` (as root)", prefix));
  return ClusterSpec::from_json(status["spec"]);
}

std::string cluster_hosts_file(const ClusterSpec& spec, bool ssh) {
  std::string text =
      ssh ? fmt::format(
                "# The emulated {}-host cluster of `dtbench cluster up --ssh`: network namespaces\n"
                "# {}n0.. on a bridge, each with its own sshd, reached by mpirun over ssh.\n"
                "#dtbench: emulated prefix={} subnet={} launch=ssh\n",
                spec.hosts, spec.prefix, spec.prefix, spec.subnet)
          : fmt::format(
                "# The emulated {}-host cluster of `dtbench cluster up`: network namespaces {}n0.. "
                "on a\n# bridge, reached by mpirun through harness/cluster/netns-agent instead of "
                "ssh.\n"
                "#dtbench: emulated prefix={} subnet={}\n",
                spec.hosts, spec.prefix, spec.prefix, spec.subnet);
  for (int i = 0; i < spec.hosts; ++i) {
    text += (ssh ? spec.namespace_of(i) : spec.address_of(i)) + " slots=1\n";
  }
  return text;
}

}  // namespace dtbench
