// What communication costs the CPU (report/predict/model_inputs.h, comm_cpu_for): from 1 MiB up
// a straight line through what the iallreduce sweep measured; under it, the sizes measured, and
// only those whose operations together spanned enough of the kernel's ticks to be read.
#include <gtest/gtest.h>

#include <cstdint>

#include "report/predict/model_inputs.h"

namespace dtbench {
namespace {

constexpr double kMiBytes = 1 << 20;

CollectiveRun iallreduce(int64_t bytes, double cpu_s, int operations) {
  CollectiveRun c;
  c.op = "iallreduce";
  c.backend = "mpi";
  c.ranks = 4;
  c.bytes = bytes;
  c.machine_cpu_s = cpu_s;
  c.operations = operations;
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
    s.collectives.push_back(iallreduce(int64_t{mib} << 20, 0.02 + 0.1 * mib, 5));
  }
  if (with_small_sizes) {
    s.collectives.push_back(iallreduce(4096, 0.003, 200));   // 0.6 s in all: read
    s.collectives.push_back(iallreduce(65536, 0.005, 200));  // 1.0 s: read
    s.collectives.push_back(iallreduce(256, 0.0001, 200));   // 0.02 s: two ticks, not read
  }
  return s;
}

TEST(CommCpu, FromOneMebibyteUpTheLine) {
  const CpuEstimate e = comm_cpu_for(swept(true), four_ranks_on_two_cores());
  ASSERT_TRUE(e.cpu.machine_cpu_s) << e.source;
  EXPECT_NEAR(e.cpu.machine_cpu_s(8 * kMiBytes), 0.82, 1e-9);
  EXPECT_NEAR(e.cpu.machine_cpu_s(64 * kMiBytes), 6.42, 1e-9);  // past the sizes swept
}

TEST(CommCpu, UnderOneMebibyteWhatTheSmallSizesMeasured) {
  const CpuEstimate e = comm_cpu_for(swept(true), four_ranks_on_two_cores());
  ASSERT_TRUE(e.cpu.machine_cpu_s) << e.source;
  EXPECT_NEAR(e.cpu.machine_cpu_s(4096), 0.003, 1e-12);
  EXPECT_NEAR(e.cpu.machine_cpu_s(65536), 0.005, 1e-12);
  // Below the smallest size read (256 bytes spanned two ticks only): the smallest's.
  EXPECT_NEAR(e.cpu.machine_cpu_s(256), 0.003, 1e-12);
  // Between 64 KiB and 1 MiB, towards the line's 0.12 s at 1 MiB.
  const double half = (65536 + kMiBytes) / 2;
  EXPECT_NEAR(e.cpu.machine_cpu_s(half), (0.005 + 0.12) / 2, 1e-9);
  EXPECT_NE(e.source.find("under it, 2 sizes measured"), std::string::npos) << e.source;
}

TEST(CommCpu, WithoutSmallSizesInProportionNotTheIntercept) {
  const CpuEstimate e = comm_cpu_for(swept(false), four_ranks_on_two_cores());
  ASSERT_TRUE(e.cpu.machine_cpu_s) << e.source;
  // The line's intercept (0.02 s) would charge a 4 KiB tensor 0.02 s; in proportion to 1 MiB's
  // 0.12 s it costs 0.12 / 256.
  EXPECT_NEAR(e.cpu.machine_cpu_s(4096), 0.12 / 256, 1e-12);
}

}  // namespace
}  // namespace dtbench
