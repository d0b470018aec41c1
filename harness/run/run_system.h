#pragma once
// system.json of a results directory: an MLPerf-like description of where a matrix ran.
#include <nlohmann/json.hpp>

#include <string>

#include "run/hosts_file.h"

namespace dtbench {

// The machine (describe_system), the hosts file, the NICs, the emulated cluster's link
// shaping (if any), OpenMPI's, Slurm's (in a job) and the Debian packages' versions, the stack
// they make (common/software_stack.h), and the checksums of the datasets in data_dir.
nlohmann::json describe_run_system(const HostsFile& hosts, const std::string& data_dir,
                                   const nlohmann::json& cluster_status);

}  // namespace dtbench
