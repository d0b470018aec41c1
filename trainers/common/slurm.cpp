#include "common/slurm.h"

#include <fmt/format.h>

#include <cstdlib>

#include "common/error.h"

namespace dtbench {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

int env_number(const char* name) {
  const std::string text = env(name);
  char* end = nullptr;
  const long n = std::strtol(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0' && n > 0 ? static_cast<int>(n) : 0;
}

}  // namespace

std::optional<SlurmJob> slurm_job() {
  SlurmJob job;
  job.job_id = env("SLURM_JOB_ID");
  if (job.job_id.empty()) return std::nullopt;
  job.nodelist = env("SLURM_JOB_NODELIST");
  job.ntasks = env_number("SLURM_NTASKS");
  job.step_tasks = env_number("SLURM_STEP_NUM_TASKS");
  job.pmix = !env("PMIX_RANK").empty();
  return job;
}

std::string launcher() {
  if (!env("OMPI_COMM_WORLD_SIZE").empty()) return "mpirun";
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
