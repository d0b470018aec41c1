#pragma once
// How many intra-op threads a rank takes, the same whatever started it (mpirun, mpirun over ssh,
// srun, the emulated cluster's agent). A rank may run on the cores of its cpuset (capped by the
// CPUs Slurm allocated on its node, SLURM_CPUS_ON_NODE); the ranks that run on the same machine
// with the same cpuset share those cores. The ranks find each other by what they have in common
// whoever launched them: the kernel's boot id (one per machine: network namespaces and containers
// share it, so the emulated cluster's "nodes" are one machine) and the cpuset. The launcher's own
// count of ranks per node (OMPI_COMM_WORLD_LOCAL_SIZE, Slurm's SLURM_STEP_TASKS_PER_NODE, PMIx's
// PMIX_LOCAL_SIZE) is kept beside it: on the emulated cluster it says 1 where 4 share the cores.
// Plain C++: the trainer and dtbench-probe both use it.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dtbench {

// Where this process may run: the machine (kernel boot id), its cpuset ("0-1") and its size.
struct CpuPlace {
  std::string machine;
  std::string cpuset;
  int cores = 1;
  int slurm_cpus = 0;  // SLURM_CPUS_ON_NODE: the CPUs of the allocation on this node; 0 unset

  std::string key() const;  // machine and cpuset in one string: equal for ranks that share
};

CpuPlace cpu_place();

// The launcher's count of ranks on this rank's node, and the variable it came from ("" none).
struct LauncherCount {
  int ranks = 0;
  std::string source;
};

// From the environment: OMPI_COMM_WORLD_LOCAL_SIZE, else SLURM_STEP_TASKS_PER_NODE at this task's
// SLURM_NODEID ("2(x3),1": the tasks on each node of the step), else PMIX_LOCAL_SIZE.
LauncherCount launcher_local_ranks();

struct ThreadShare {
  int threads = 1;
  std::string source;      // "option" (--threads) or "shared" (cores / ranks sharing them)
  int cores = 1;           // usable by this rank: its cpuset, capped by Slurm's CPUs on the node
  std::string cores_from;  // "cpuset", or "SLURM_CPUS_ON_NODE" where that capped it
  std::string cpuset;      // this rank's
  int ranks_sharing = 1;   // ranks on this machine with this cpuset, this one included
  LauncherCount launcher;

  nlohmann::json to_json() const;
  static ThreadShare from_json(const nlohmann::json& j);
  // "1 thread: 4 ranks share 2 cores (cpuset 0-1) of one machine; OMPI_COMM_WORLD_LOCAL_SIZE
  // says 1 rank per node"
  std::string text() const;
};

// The share of the rank at `rank` among every rank's place key (places[r] = cpu_place().key() of
// rank r); asked > 0 is the user's --threads and wins.
ThreadShare share_threads(int asked, const CpuPlace& mine, const std::vector<std::string>& places,
                          const LauncherCount& launcher);

}  // namespace dtbench
