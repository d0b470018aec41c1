#pragma once
// Hosts files in OpenMPI's hostfile syntax ("host slots=N", '#' comments), as `mpirun
// --hostfile` reads them, plus one dtbench directive hidden in a comment:
//
//     #dtbench: emulated prefix=dtb- subnet=10.99.0 [launch=ssh]
//
// marks a hosts file whose hosts are the emulated cluster's network namespaces (dtbench
// cluster up), which mpirun reaches through harness/cluster/netns-agent, or with launch=ssh by ssh
// as on a real cluster (dtbench cluster up --ssh; the hosts are then the nodes' names). And
//
//     #dtbench: links rate=10gbit
//
// states a real cluster's link rate (as tc writes rates), which results then record and hold
// the collectives' bandwidth and the doctor's links to.
#include <string>
#include <vector>

namespace dtbench {

struct HostEntry {
  std::string name;
  int slots = 0;
};

struct HostsFile {
  std::string path;
  std::vector<HostEntry> hosts;
  bool emulated = false;
  std::string netns_prefix = "dtb-";  // emulated: namespaces <prefix>n0, <prefix>n1, ...
  std::string subnet = "10.99.0";     // emulated: the cluster's /24, hosts at .1, .2, ...
  bool ssh = false;  // emulated: mpirun reaches the hosts by ssh (cluster up --ssh), not the agent
  std::string link_rate;  // "links rate=": the rate stated for every link; "" none

  int total_slots() const;
};

// Parses text read from path (used in messages). UserError "hosts file P line N: ..." on a
// malformed line, a host without slots=, a duplicate host, or a file without hosts.
HostsFile parse_hosts_file(const std::string& text, const std::string& path);

// Reads and parses path; UserError when it cannot be read.
HostsFile read_hosts_file(const std::string& path);

}  // namespace dtbench
