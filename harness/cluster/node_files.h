#pragma once
// Each emulated node's own /etc: `ip netns exec <ns>` mounts every entry of /etc/netns/<ns>/
// over /etc for what it starts (the nodes' sshds and slurmds, and so their sessions and jobs).
#include <string>

#include "common/network_spec.h"

namespace dtbench {

// /etc/netns/<ns>.
std::string etc_of(const std::string& ns);

// Every node's /etc/hosts: each node's name and address, and the bridge as <prefix>ctl.
void write_node_hosts(const ClusterSpec& spec);

// Removes what was written under /etc/netns for the nodes of this prefix.
void remove_node_files(const std::string& prefix);

}  // namespace dtbench
