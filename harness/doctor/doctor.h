#pragma once
// `dtbench doctor --hosts FILE`: whether a hosts file is ready for a matrix, asked of every
// host through the launcher the experiments use (dtbench-probe): each host reachable, the same
// dtbench build everywhere (commit and dirty flag), the same dataset files (SHA-256), TCP open
// between every pair at the address Gloo uses, and the links measured in rounds of disjoint pairs
// against the rate the cluster states or the fastest seen, naming a slow host or link, and a short
// compute on every host at once under each launcher path it uses (under srun, mpirun's too),
// naming a host whose compute is far slower. `dtbench run` asks the first three before it
// launches anything (the preflight).
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/links.h"
#include "common/thread_share.h"
#include "run/experiment_command.h"
#include "run/hosts_file.h"

namespace dtbench {

// One line of the verdict: "PASS", "WARN" or "FAIL", and what was found (naming the host).
struct Finding {
  std::string verdict;
  std::string text;
};

// A host's answer: its name, its build and its dataset files (path under the data directory ->
// SHA-256).
struct HostIdentity {
  std::string host;
  std::string commit;
  std::map<std::string, std::string> data;
  static HostIdentity from_json(const nlohmann::json& j);
};

// This process's own identity (dtbench-probe answers with the same), for data_dir.
nlohmann::json host_identity(const std::string& data_dir);

// One direction of one link: from -> to (indices of the hosts file's hosts).

// Builds and data of every host (named as the hosts file names them) against this machine's.
std::vector<Finding> judge_hosts(const HostIdentity& here, const std::vector<std::string>& names,
                                 const std::vector<HostIdentity>& hosts);

// The links measured one way each (a -> b) against `stated` bytes/s of payload (0: the fastest
// seen), described by `stated_what` ("the emulated cluster's 1gbit"), by the rule of
// common/links.h: a host whose links are all slow while the others' are not is named; otherwise
// each slow link is.
std::vector<Finding> judge_links(const std::vector<std::string>& names,
                                 const std::vector<MeasuredLink>& links, double stated,
                                 const std::string& stated_what);

// A TCP connection that one host could not open to another's listener (indices of the hosts
// file's hosts), at endpoint "ADDRESS:PORT", and why ("Connection refused", "no answer in ...").
struct BlockedPort {
  int from = 0;
  int to = 0;
  std::string endpoint;
  std::string why;
};

// A probe's "dtbench-probe: blocked: 1 -> 3 (10.0.0.4:41235): why" line, read back.
std::optional<BlockedPort> parse_blocked_line(const std::string& line);

// The first line of a launcher's or ssh's message that says something: not a banner rule, not a
// probe's progress, and not a warning such as Open MPI's "plm:ssh: Warning: setpgid(...) failed"
// when a line after it gives the error (a warning only when nothing else is said).
std::string telling_line(const std::string& text);

// The connections between the hosts: each blocked one a FAIL naming both hosts, or one PASS.
std::vector<Finding> judge_ports(const std::vector<std::string>& names,
                                 const std::vector<BlockedPort>& blocked);

// One host's answer to the compute probe: the threads a trainer takes there, and how long the
// probe's compute took with them while every host ran it at once.
struct ComputeSample {
  ThreadShare threads;
  double seconds = 0;
};

// The compute probe's samples (per host, in the order of names) under each launcher path the
// doctor took (the first is the experiments'): a host far slower than the others, or far slower
// under one launcher than under another, is named with the likely cause (threads, cpuset).
std::vector<Finding> judge_compute(
    const std::vector<std::string>& names,
    const std::vector<std::pair<std::string, std::vector<ComputeSample>>>& runs);

struct DoctorOptions {
  double link_mb = 4;  // 0: the links are not measured (the preflight)
  int repeats = 3;     // messages per direction of each link; the fastest counts
  double timeout_s = 60;
};

// Launches the probes (each host alone, then, with links, all hosts together; the data
// directory is settings.data_dir) and judges.
std::vector<Finding> examine_hosts(const HostsFile& hosts, const CommandSettings& settings,
                                   const DoctorOptions& options);

// The hosts among `which` (indices of hosts' hosts) that dtbench-probe cannot run on alone
// within timeout_s, each with the reach check's failure (as the doctor says it).
std::map<size_t, std::string> unreachable_hosts(const HostsFile& hosts,
                                                const std::vector<size_t>& which,
                                                const CommandSettings& settings, double timeout_s);

// Whether none of the findings is a FAIL.
bool all_pass(const std::vector<Finding>& findings);

}  // namespace dtbench
