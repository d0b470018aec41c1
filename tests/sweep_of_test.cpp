// The time the model prices a sweep's operations at (report/predict/model_inputs.h, priced_s):
// Gloo's chained, MPI's between barriers; older sweeps without the chained time, as measured.
#include <gtest/gtest.h>

#include <string>

#include "report/predict/model_inputs.h"

namespace dtbench {
namespace {

CollectiveRun allreduce(const std::string& backend, double time_s, double chained_s) {
  CollectiveRun c;
  c.op = "allreduce";
  c.backend = backend;
  c.ranks = 8;
  c.bytes = 64;
  c.time_s = time_s;
  c.chained_s = chained_s;
  return c;
}

TEST(SweepOf, GlooPricedChainedMpiBetweenBarriers) {
  SystemResults s;
  // On 8 ranks of 2 cores: Gloo's 64 B took 20.7 ms between barriers and 16.6 ms chained; MPI's
  // 1 KiB 0.05 ms between barriers and 0.09 ms chained, through a drained token bucket.
  s.collectives = {allreduce("gloo", 20.7e-3, 16.6e-3), allreduce("mpi", 0.05e-3, 0.09e-3)};
  const model::MeasuredCost gloo = sweep_of(s, "allreduce", "gloo", 8);
  const model::MeasuredCost mpi = sweep_of(s, "allreduce", "mpi", 8);
  ASSERT_EQ(gloo.seconds.size(), 1u);
  ASSERT_EQ(mpi.seconds.size(), 1u);
  EXPECT_DOUBLE_EQ(gloo.seconds[0], 16.6e-3);
  EXPECT_DOUBLE_EQ(mpi.seconds[0], 0.05e-3);
}

TEST(SweepOf, WithoutAChainedTimeAsMeasured) {
  SystemResults s;
  s.collectives = {allreduce("gloo", 20.5e-3, -1)};  // a sweep from before chained_s
  EXPECT_DOUBLE_EQ(sweep_of(s, "allreduce", "gloo", 8).seconds.at(0), 20.5e-3);
}

}  // namespace
}  // namespace dtbench
