// What dtbench reads of Slurm's environment (common/slurm.h): the job recorded, the launcher
// told apart, and srun's tasks started as singletons refused. Slurm's variables are set here as
// sbatch, salloc and srun set them; no Slurm runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "cluster/cluster_slurm.h"
#include "cluster/slurm_script.h"
#include "common/error.h"
#include "common/slurm.h"
#include "fixtures.h"
#include "record/system_info.h"

namespace dtbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Every variable the code reads.
const std::vector<std::string> kRead = {"SLURM_JOB_ID", "SLURM_JOB_NODELIST",
                                        "SLURM_NTASKS", "SLURM_STEP_NUM_TASKS",
                                        "PMIX_RANK",    "OMPI_COMM_WORLD_SIZE"};

// Slurm's variables as it sets them, for the scope.
class Environment : public testing::ScopedEnvironment {
 public:
  explicit Environment(const std::map<std::string, std::string>& values)
      : ScopedEnvironment(kRead, values) {}
};

std::string error_of(int world_size) {
  try {
    require_one_world(world_size);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Slurm, OutsideAnAllocationNothingIsRecordedOrChecked) {
  Environment none({});
  EXPECT_FALSE(slurm_job().has_value());
  EXPECT_EQ(launcher(), "none");
  EXPECT_TRUE(slurm_record().is_null());
  EXPECT_EQ(error_of(1), "");
}

TEST(Slurm, TheJobIsRecordedInTheSystemDescription) {
  Environment job(
      {{"SLURM_JOB_ID", "4242"}, {"SLURM_JOB_NODELIST", "dtb-n[0-3]"}, {"SLURM_NTASKS", "4"}});
  const nlohmann::json system = describe_system({});
  EXPECT_EQ(system["slurm"]["job_id"], "4242");
  EXPECT_EQ(system["slurm"]["nodelist"], "dtb-n[0-3]");
  EXPECT_EQ(system["slurm"]["ntasks"], 4);
  EXPECT_EQ(system["launcher"], "none");
}

TEST(Slurm, SrunTasksStartedAsSingletonsAreRefusedWithTheFix) {
  Environment step({{"SLURM_JOB_ID", "7"}, {"SLURM_NTASKS", "4"}, {"SLURM_STEP_NUM_TASKS", "4"}});
  EXPECT_EQ(launcher(), "none");  // no PMIx: --backend auto would pick self
  const std::string error = error_of(1);
  EXPECT_THAT(error, HasSubstr("srun started 4 tasks, but this one is in a world of 1 rank(s)"));
  EXPECT_THAT(error, HasSubstr("srun --mpi=pmix"));
}

TEST(Slurm, SrunWithPmixIsAWorldOfItsTasks) {
  Environment step({{"SLURM_JOB_ID", "7"},
                    {"SLURM_NTASKS", "4"},
                    {"SLURM_STEP_NUM_TASKS", "4"},
                    {"PMIX_RANK", "2"}});
  EXPECT_EQ(launcher(), "srun");
  EXPECT_EQ(error_of(4), "");
  EXPECT_THAT(error_of(2), HasSubstr("srun started 4 tasks"));
  EXPECT_EQ(describe_system({})["slurm"]["step_tasks"], 4);
}

TEST(Slurm, MpirunInsideAnAllocationIsNotChecked) {
  // mpirun starts its daemons as an srun step of one task per node; the ranks inherit it.
  Environment inside({{"SLURM_JOB_ID", "7"},
                      {"SLURM_NTASKS", "4"},
                      {"SLURM_STEP_NUM_TASKS", "2"},
                      {"OMPI_COMM_WORLD_SIZE", "4"}});
  EXPECT_EQ(launcher(), "mpirun");
  EXPECT_EQ(error_of(4), "");
}

TEST(SlurmScript, OneTaskPerNodeTheAllocationAsHostsAndDtbenchRunInside) {
  Matrix m;
  m.name = "smoke";
  m.experiments.resize(2);
  m.experiments[0].ranks = 2;
  m.experiments[1].ranks = 4;
  SlurmScriptOptions o;
  o.dtbench = "/opt/dtbench/build/dtbench";
  o.matrix = "smoke";
  o.data_dir = "/data";
  o.out_dir = "/results/smoke";
  o.time_limit = "01:00:00";
  o.run_args = {"--repeat", "3", "--max-steal", "0.1 "};
  const std::string script = slurm_script(m, o);
  EXPECT_EQ(script.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_THAT(script, HasSubstr("#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\n"));
  EXPECT_THAT(script, HasSubstr("#SBATCH --output=/results/smoke/slurm-%j.out\n"));
  EXPECT_THAT(script, HasSubstr("#SBATCH --time=01:00:00\n"));
  EXPECT_THAT(script, Not(HasSubstr("--partition")));
  EXPECT_THAT(script, HasSubstr("scontrol show hostnames \"$SLURM_JOB_NODELIST\" | sed "
                                "'s/$/ slots=1/' > \"$hosts\""));
  EXPECT_THAT(script, HasSubstr("exec /opt/dtbench/build/dtbench run --hosts \"$hosts\" --matrix "
                                "smoke --data-dir /data --out /results/smoke --repeat 3 "
                                "--max-steal '0.1 '\n"));
  o.nodes = 3;
  try {
    slurm_script(m, o);
    FAIL() << "3 nodes for a 4-rank experiment";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "--nodes 3: matrix smoke has an experiment of 4 ranks (one per node)");
  }
}

TEST(Slurm, TheCgroupPluginFollowsTheSlurmdVersion) {
  // Debian 12's and Debian 13's slurmd -V.
  EXPECT_EQ(cgroup_conf_text("slurm-wlm 22.05.8\n"), "CgroupPlugin=cgroup/v1\n");
  EXPECT_EQ(cgroup_conf_text("slurm 24.11.5\n"), "CgroupPlugin=disabled\n");
  EXPECT_EQ(cgroup_conf_text("slurm 23.11.0\n"), "CgroupPlugin=disabled\n");
  EXPECT_EQ(cgroup_conf_text(""), "CgroupPlugin=cgroup/v1\n");
}

}  // namespace
}  // namespace dtbench
