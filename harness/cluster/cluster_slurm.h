#pragma once
// Slurm on the emulated cluster, as a partition is: slurmctld in the root namespace (as
// <prefix>ctl, the bridge's address), one slurmd per host's namespace under the host's name,
// authenticated by one munged (its socket is a file, shared by every namespace). Clients
// (sbatch, srun, sinfo) read the configuration from $SLURM_CONF = slurm_conf(prefix).
#include <string>

#include "common/network_spec.h"

namespace dtbench {

// Starts munged (unless one answers already), slurmctld and the slurmds; returns once every
// node is idle. UserError naming what is missing (the daemons: `make setup-cluster`).
void start_slurm(const ClusterSpec& spec);

// Stops slurmctld and a munged that start_slurm started (the slurmds end with their
// namespaces), and removes the configuration, state and logs.
void remove_slurm(const std::string& prefix);

// The configuration's path: clients need SLURM_CONF set to it.
std::string slurm_conf(const std::string& prefix);

// cgroup.conf for the slurmd that `slurmd -V` names: Slurm 23.11 and later take
// CgroupPlugin=disabled; 22.05 takes cgroup/v1, which it never mounts here.
std::string cgroup_conf_text(const std::string& slurmd_version);

// Whether start_slurm has run for this prefix.
bool slurm_is_set_up(const std::string& prefix);

}  // namespace dtbench
