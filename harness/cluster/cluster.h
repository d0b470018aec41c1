#pragma once
// The emulated cluster: n network namespaces (<prefix>n0..) whose eth0 is one end of a veth
// pair, the other end (<prefix>v0..) on a bridge (<prefix>br0) in the root namespace, with
// addresses <subnet>.1.. (the bridge has <subnet>.254). Each host's link is shaped in both
// directions with tc tbf (eth0 inside: sending; the bridge port: receiving), with an optional
// netem delay where the kernel has netem. Needs root and iproute2.
#include <nlohmann/json.hpp>

#include <string>

#include "common/network_spec.h"
#include "run/matrix.h"

namespace dtbench {

// Creates (or completes) the cluster and applies its shaping; running it on an existing
// cluster only reapplies what differs. Records the spec for status and for the harness. With
// ssh, an OpenSSH server in each namespace too (cluster_ssh.h); with slurm, a Slurm partition
// of its hosts (cluster_slurm.h).
void cluster_up(const ClusterSpec& spec, bool ssh = false, bool slurm = false);

// Removes every namespace, veth and bridge of that prefix (killing processes left in them,
// its sshds among them) and what cluster up --ssh wrote.
void cluster_down(const std::string& prefix);

// {"up": bool, "spec": {...}, "hosts": [{"namespace", "address", "qdisc"}], "delay_emulated"}.
nlohmann::json cluster_status(const std::string& prefix);

// The spec recorded by cluster_up; UserError "the emulated cluster is not up" otherwise.
ClusterSpec current_cluster(const std::string& prefix);

// Reshapes the running cluster: spec's links with the profile's overrides. Returns the
// shaping applied, as recorded in results.
nlohmann::json shape_cluster(const ClusterSpec& spec, const NetworkProfile& profile);

// The hosts file for the cluster (OpenMPI syntax plus the #dtbench: emulated directive): its
// addresses, reached through the agent; with ssh, its nodes' names, reached by ssh.
std::string cluster_hosts_file(const ClusterSpec& spec, bool ssh = false);

}  // namespace dtbench
