#include "common/slurm.h"

#include <fmt/format.h>

#include "common/environment.h"
#include "common/error.h"

namespace dtbench {

std::optional<SlurmJob> slurm_job() {
  SlurmJob job;
  job.job_id = env_text("SLURM_JOB_ID");
  if (job.job_id.empty()) return std::nullopt;
  job.nodelist = env_text("SLURM_JOB_NODELIST");
  job.ntasks = positive_count(env_text("SLURM_NTASKS"));
  job.step_tasks = positive_count(env_text("SLURM_STEP_NUM_TASKS"));
  job.pmix = !env_text("PMIX_RANK").empty();
  return job;
}

std::string launcher() {
  if (!env_text("OMPI_COMM_WORLD_SIZE").empty()) return "mpirun";
  const auto job = slurm_job();
  return job && job->step_tasks > 0 && job->pmix ? "srun" : "none";
}

void require_one_world(int world_size) {
  const auto job = slurm_job();
  if (!job || launcher() == "mpirun" || job->step_tasks <= 1) return;
  require(world_size == job->step_tasks,
          fmt::format("srun started {} tasks, but this one is in a world of {} rank(s): "
                      "Debian's OpenMPI joins srun's tasks only through PMIx (srun --mpi=pmix), "
                      "or run mpirun inside the allocation",
                      job->step_tasks, world_size));
}

nlohmann::json slurm_record() {
  const auto job = slurm_job();
  if (!job) return nullptr;
  return {{"job_id", job->job_id},
          {"nodelist", job->nodelist},
          {"ntasks", job->ntasks},
          {"step_tasks", job->step_tasks}};
}

}  // namespace dtbench
