#pragma once
// The emulated cluster reached by ssh, as a real one is: an OpenSSH server in each host's
// namespace, with its own hostname (a UTS namespace), its own host key and key-only root login,
// the nodes' names resolvable on every node (/etc/netns/<ns>/hosts), and a client
// configuration for the root namespace that names the nodes and checks their host keys.
#include <string>

#include "common/network_spec.h"

namespace dtbench {

// Starts (or keeps) an sshd in every host of the running cluster; returns once each accepts
// connections. UserError naming what is missing (sshd: `make setup-cluster`).
void start_ssh(const ClusterSpec& spec);

// Removes the client configuration and keys (the sshds end with their namespaces; the nodes'
// files go with remove_node_files).
void remove_ssh(const std::string& prefix);

// The client configuration for the root namespace: ssh -F FILE NODE reaches a node by name
// (mpirun: --mca plm_rsh_args "-F FILE").
std::string ssh_client_config(const std::string& prefix);

// Whether start_ssh has run for this prefix (its client configuration exists).
bool ssh_is_set_up(const std::string& prefix);

}  // namespace dtbench
