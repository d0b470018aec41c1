#pragma once
// The command line of one experiment: mpirun with the hosts file and the launch settings the
// hosts need, then the experiment's binary with its options. An argv, never a shell string.
#include <map>
#include <string>
#include <vector>

#include "run/hosts_file.h"
#include "run/matrix.h"

namespace dtbench {

struct CommandSettings {
  std::string mpirun = "mpirun";
  std::string launcher = "mpirun";  // mpirun | srun (inside a Slurm allocation)
  std::string bin_dir;              // where dtbench-train and bench_collectives are
  std::string netns_agent;          // harness/cluster/netns-agent, for emulated hosts
  std::string data_dir;
  std::string python_ddp;  // baselines/python_ddp.py
  std::string python = "/usr/bin/python3";
  std::map<std::string, std::string> faults;  // test only: group -> --fault SPEC
};

// port: where a python_ddp experiment's rank 0 listens for the Gloo rendezvous.
std::vector<std::string> experiment_argv(const Experiment& e, const HostsFile& hosts,
                                         const CommandSettings& s, const std::string& result_path,
                                         int port = 29531);

// The launcher's command for `ranks` ranks on the hosts file: what precedes every experiment's
// binary, and `dtbench launch`'s command. mpirun with the hosts file and the settings its hosts
// need; or, inside a Slurm allocation (launcher srun), srun --mpi=pmix on the file's first
// hosts. ranks_per_host > 0: that many ranks on each host. `variables` (NAME -> value) reach
// every rank: mpirun's -x; srun passes its environment on, which launch_env fills.
std::vector<std::string> launch_argv(int ranks, const HostsFile& hosts, const CommandSettings& s,
                                     int ranks_per_host = 0,
                                     const std::map<std::string, std::string>& variables = {});

// The hosts (indices of hosts.hosts) a launch of `ranks` fills, in order: `ranks_per_host` on
// each, or (0) each host's slots.
std::vector<size_t> hosts_for(int ranks, const HostsFile& hosts, int ranks_per_host = 0);

// {DTBENCH_EXPERIMENT: a word naming the result path}: what the experiment's ranks carry in
// their environment, so that the noise guard knows them whatever started them (noise.h).
std::map<std::string, std::string> experiment_marker(const std::string& result_path);

// What reaches an experiment's ranks: its marker and, where the experiment sets mpi_fragment,
// OpenMPI's TCP fragment (kMpiFragmentVariable).
inline constexpr const char* kMpiFragmentVariable = "OMPI_MCA_btl_tcp_rdma_pipeline_frag_size";
std::map<std::string, std::string> experiment_variables(const Experiment& e,
                                                        const std::string& result_path);

// The environment the launcher runs in: root permission for OpenMPI, for emulated hosts the
// namespace prefix that harness/cluster/netns-agent (mpirun's child) reads; for srun, which passes
// it on to the ranks, the MCA settings mpirun would give as --mca and the ranks' `variables`.
std::map<std::string, std::string> launch_env(
    const HostsFile& hosts, const CommandSettings& s,
    const std::map<std::string, std::string>& variables = {});

}  // namespace dtbench
