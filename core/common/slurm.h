#pragma once
// What Slurm's environment says about this process: sbatch, salloc and srun set SLURM_*, and
// srun --mpi=pmix gives its tasks PMIx's (docs/harness.md, "Slurm"). Plain data, read from the
// environment each call.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace dtbench {

struct SlurmJob {
  std::string job_id;    // SLURM_JOB_ID
  std::string nodelist;  // SLURM_JOB_NODELIST
  int ntasks = 0;        // SLURM_NTASKS: the allocation's tasks (0: not given)
  int step_tasks = 0;    // SLURM_STEP_NUM_TASKS: the tasks of this srun step (0: not in a step)
  bool pmix = false;     // PMIX_RANK is set: srun --mpi=pmix joined the step's tasks in one world
};

// The job this process runs in; nullopt outside a Slurm allocation.
std::optional<SlurmJob> slurm_job();

// How this process was started: "mpirun" (OpenMPI's environment), "srun" (a task of an srun
// step joined by PMIx), or "none" (alone, or a task srun started without PMIx).
std::string launcher();

// UserError when srun started several tasks that did not form one world of that many ranks:
// without PMIx, Debian's OpenMPI starts each task as a world of its own (a singleton), and they
// would train apart. Processes started by mpirun (inside an allocation too) are not checked.
void require_one_world(int world_size);

// What a record keeps: {"job_id", "nodelist", "ntasks", "step_tasks"}; null outside Slurm.
nlohmann::json slurm_record();

}  // namespace dtbench
