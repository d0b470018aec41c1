// How many threads a rank takes (common/thread_share.h): the cores of its cpuset shared by the
// ranks found on the same machine with the same cpuset, whatever the launcher said; the
// launcher's own count read from each launcher's variables, set here as mpirun, srun and PMIx
// set them. And the doctor's judgment of the compute probe on made-up samples (doctor.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "common/thread_share.h"
#include "doctor/doctor.h"
#include "fixtures.h"

namespace dtbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

// Every variable the code reads, unset before each case sets its own.
const std::vector<std::string> kShareVariables = {"OMPI_COMM_WORLD_LOCAL_SIZE",
                                                  "SLURM_STEP_TASKS_PER_NODE", "SLURM_NODEID",
                                                  "PMIX_LOCAL_SIZE", "SLURM_CPUS_ON_NODE"};

// The launcher's variables as it sets them, for the scope.
class ShareEnvironment : public testing::ScopedEnvironment {
 public:
  explicit ShareEnvironment(const std::map<std::string, std::string>& values)
      : ScopedEnvironment(kShareVariables, values) {}
};

CpuPlace place(const std::string& machine, const std::string& cpuset, int cores) {
  CpuPlace p;
  p.machine = machine;
  p.cpuset = cpuset;
  p.cores = cores;
  return p;
}

TEST(ThreadShare, RanksOnOneMachineAndCpusetShareItsCores) {
  const CpuPlace mine = place("boot-a", "0-1", 2);
  const CpuPlace other_machine = place("boot-b", "0-1", 2);
  // The emulated cluster: four "nodes" that are one machine, whatever the launcher counts.
  ThreadShare s = share_threads(0, mine, {mine.key(), mine.key(), mine.key(), mine.key()},
                                {1, "SLURM_STEP_TASKS_PER_NODE"});
  EXPECT_EQ(s.threads, 1);
  EXPECT_EQ(s.ranks_sharing, 4);
  EXPECT_EQ(s.source, "shared");
  EXPECT_THAT(s.text(), HasSubstr("4 ranks share 2 cores (cpuset 0-1)"));
  EXPECT_THAT(s.text(), HasSubstr("SLURM_STEP_TASKS_PER_NODE says 1 rank per node"));
  // Real nodes: one rank on each machine takes every core of its own.
  s = share_threads(0, mine, {mine.key(), other_machine.key()}, {1, "OMPI_COMM_WORLD_LOCAL_SIZE"});
  EXPECT_EQ(s.threads, 2);
  EXPECT_EQ(s.ranks_sharing, 1);
  EXPECT_THAT(s.text(), Not(HasSubstr("says")));  // the launcher agrees
  // Ranks bound to cpusets of their own do not share.
  const CpuPlace bound = place("boot-a", "2-5", 4);
  s = share_threads(0, bound, {mine.key(), bound.key()}, {});
  EXPECT_EQ(s.threads, 4);
  // The user's --threads wins, and says so.
  s = share_threads(3, mine, {mine.key(), mine.key()}, {});
  EXPECT_EQ(s.threads, 3);
  EXPECT_EQ(s.source, "option");
  EXPECT_THAT(s.text(), HasSubstr("(--threads)"));
  // Slurm's CPUs on the node cap the cpuset of a node without task binding.
  CpuPlace allocated = place("boot-c", "0-31", 32);
  allocated.slurm_cpus = 8;
  s = share_threads(0, allocated, {allocated.key(), allocated.key()}, {});
  EXPECT_EQ(s.cores, 8);
  EXPECT_EQ(s.threads, 4);
  EXPECT_THAT(s.text(), HasSubstr("2 ranks share 8 cores (SLURM_CPUS_ON_NODE of cpuset 0-31)"));
  EXPECT_EQ(ThreadShare::from_json(s.to_json()).to_json(), s.to_json());
}

TEST(ThreadShare, ThisProcessKnowsItsMachineAndCpuset) {
  const CpuPlace here = cpu_place();
  EXPECT_FALSE(here.machine.empty());
  EXPECT_FALSE(here.cpuset.empty());
  EXPECT_GE(here.cores, 1);
}

TEST(ThreadShare, EachLauncherSaysHowManyRanksShareItsNode) {
  {
    ShareEnvironment mpirun({{"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}, {"PMIX_LOCAL_SIZE", "4"}});
    const LauncherCount c = launcher_local_ranks();
    EXPECT_EQ(c.ranks, 4);
    EXPECT_EQ(c.source, "OMPI_COMM_WORLD_LOCAL_SIZE");
  }
  {
    // srun: 2 tasks on each of the first three nodes, 1 on the fourth.
    ShareEnvironment srun({{"SLURM_STEP_TASKS_PER_NODE", "2(x3),1"}, {"SLURM_NODEID", "3"}});
    EXPECT_EQ(launcher_local_ranks().ranks, 1);
    EXPECT_EQ(launcher_local_ranks().source, "SLURM_STEP_TASKS_PER_NODE");
  }
  {
    ShareEnvironment srun({{"SLURM_STEP_TASKS_PER_NODE", "2(x3),1"}, {"SLURM_NODEID", "2"}});
    EXPECT_EQ(launcher_local_ranks().ranks, 2);
  }
  {
    ShareEnvironment pmix(std::map<std::string, std::string>{{"PMIX_LOCAL_SIZE", "3"}});
    EXPECT_EQ(launcher_local_ranks().ranks, 3);
    EXPECT_EQ(launcher_local_ranks().source, "PMIX_LOCAL_SIZE");
  }
  {
    ShareEnvironment none(std::map<std::string, std::string>{});
    EXPECT_EQ(launcher_local_ranks().ranks, 0);
    EXPECT_EQ(launcher_local_ranks().source, "");
  }
  {
    ShareEnvironment cap(std::map<std::string, std::string>{{"SLURM_CPUS_ON_NODE", "1"}});
    EXPECT_EQ(cpu_place().slurm_cpus, 1);
  }
}

ComputeSample sample(int threads, int sharing, int cores, double seconds,
                     const std::string& cpuset = "0-1") {
  ComputeSample s;
  s.threads.threads = threads;
  s.threads.ranks_sharing = sharing;
  s.threads.cores = cores;
  s.threads.cpuset = cpuset;
  s.seconds = seconds;
  return s;
}

TEST(DoctorCompute, AlikeHostsPassAndTheOddOneIsNamedWithItsCause) {
  const std::vector<std::string> names = {"n0", "n1", "n2", "n3"};
  const std::vector<ComputeSample> alike(4, sample(1, 4, 2, 0.2));
  auto f = judge_compute(names, {{"srun", alike}, {"mpirun", alike}});
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_EQ(f[0].verdict, "PASS");
  EXPECT_THAT(f[0].text, HasSubstr("compute: srun and mpirun alike on all 4 hosts"));

  // One host with more threads than its cores: a warning naming it and the threads.
  std::vector<ComputeSample> odd = alike;
  odd[2] = sample(2, 4, 2, 0.9);
  f = judge_compute(names, {{"mpirun", odd}});
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_EQ(f[0].verdict, "WARN");
  EXPECT_THAT(f[0].text, HasSubstr("n2 took 0.90 s under mpirun"));
  EXPECT_THAT(f[0].text, HasSubstr("threads: 2 per rank x 4 ranks on 2 cores"));

  // A narrower cpuset.
  odd[2] = sample(1, 1, 1, 0.9, "3");
  std::vector<ComputeSample> wide(4, sample(8, 1, 8, 0.2, "0-7"));
  wide[2] = odd[2];
  f = judge_compute(names, {{"mpirun", wide}});
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_THAT(f[0].text, HasSubstr("cpuset: 1 cores (3) where the others have 8"));

  // Every host slower under srun than under mpirun, with more threads: each one fails.
  const std::vector<ComputeSample> fat(4, sample(2, 4, 2, 0.8));
  f = judge_compute(names, {{"srun", fat}, {"mpirun", alike}});
  ASSERT_THAT(f, SizeIs(4));
  EXPECT_EQ(f[1].verdict, "FAIL");
  EXPECT_THAT(f[1].text, HasSubstr("n1 took 0.80 s under srun against 0.20 s under mpirun (4.0x)"));
  EXPECT_THAT(f[1].text, HasSubstr("srun's ranks take 2 threads, mpirun's 1"));

  // One host fast under mpirun (it computed alone: its peers had not started beside it), as
  // seen on the emulated cluster: 0.19 s under srun against 0.10 s, the other hosts 0.19-0.20 s
  // under both. Not a launcher apart.
  std::vector<ComputeSample> alone = alike;
  alone[2] = sample(1, 4, 2, 0.10);
  std::vector<ComputeSample> shared = alike;
  shared[2] = sample(1, 4, 2, 0.19);
  f = judge_compute(names, {{"srun", shared}, {"mpirun", alone}});
  for (const auto& finding : f) EXPECT_NE(finding.verdict, "FAIL") << finding.text;
}

}  // namespace
}  // namespace dtbench
