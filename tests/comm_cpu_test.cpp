// What communication costs the CPU (report/predict/model_inputs.h, comm_cpu_for): from 1 MiB up
// a straight line through what the iallreduce sweep measured; under it, in proportion to the
// bytes, whatever the smaller sizes measured (their operations' waiting, mostly).
#include <gtest/gtest.h>

#include <cstdint>

#include "report/predict/model_inputs.h"

namespace dtbench {
namespace {

constexpr double kMiBytes = 1 << 20;

CollectiveRun iallreduce(int64_t bytes, double cpu_s) {
  CollectiveRun c;
  c.op = "iallreduce";
  c.backend = "mpi";
  c.ranks = 4;
  c.bytes = bytes;
  c.machine_cpu_s = cpu_s;
  c.machines = 1;
  return c;
}

// 4 ranks of one thread on a machine of 2 cores: communication takes CPU from compute.
TrainRun four_ranks_on_two_cores() {
  TrainRun run;
  run.record.config.world_size = 4;
  run.record.config.backend = "mpi";
  run.record.threads = 1;
  run.record.ranks.resize(4);
  for (auto& r : run.record.ranks) r.usage.cores = 2;
  return run;
}

// From 1 MiB up: 0.1 s per MiB and a fixed 0.02 s, which the line's intercept carries.
SystemResults swept(bool with_small_sizes) {
  SystemResults s;
  for (int mib : {1, 4, 16}) {
    s.collectives.push_back(iallreduce(int64_t{mib} << 20, 0.02 + 0.1 * mib));
  }
  if (with_small_sizes) {
    // An operation of a few KB that takes its latency: its progress thread polls meanwhile.
    s.collectives.push_back(iallreduce(4096, 0.003));
    s.collectives.push_back(iallreduce(65536, 0.005));
  }
  return s;
}

TEST(CommCpu, FromOneMebibyteUpTheLine) {
  const CpuEstimate e = comm_cpu_for(swept(true), four_ranks_on_two_cores());
  ASSERT_TRUE(e.cpu.machine_cpu_s) << e.source;
  EXPECT_NEAR(e.cpu.machine_cpu_s(8 * kMiBytes), 0.82, 1e-9);
  EXPECT_NEAR(e.cpu.machine_cpu_s(64 * kMiBytes), 6.42, 1e-9);  // past the sizes swept
}

TEST(CommCpu, UnderOneMebibyteInProportionWhateverTheSmallSizesMeasured) {
  for (bool small : {true, false}) {
    const CpuEstimate e = comm_cpu_for(swept(small), four_ranks_on_two_cores());
    ASSERT_TRUE(e.cpu.machine_cpu_s) << e.source;
    // In proportion to 1 MiB's 0.12 s, not the 3 ms the sweep's 4 KiB operations measured, nor
    // the line's intercept (0.02 s).
    EXPECT_NEAR(e.cpu.machine_cpu_s(4096), 0.12 / 256, 1e-12);
    EXPECT_NEAR(e.cpu.machine_cpu_s(kMiBytes / 2), 0.06, 1e-12);
    EXPECT_NE(e.source.find("under it, in proportion to the bytes"), std::string::npos) << e.source;
  }
}

}  // namespace
}  // namespace dtbench
