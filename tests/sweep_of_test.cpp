// The time the model prices a sweep's operations at (report/predict/model_inputs.h, priced_s):
// Gloo's chained, MPI's between barriers; older sweeps without the chained time, as measured;
// between two swept sizes, Open MPI's reduce and broadcast as many messages as its rules choose;
// each size the mean over the sweep's repetitions.
#include <gtest/gtest.h>

#include <string>

#include "report/predict/model_inputs.h"
#include "report/read/results.h"

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
  // On 2 cores: Gloo's 64 B on 8 ranks took 22.3 ms between barriers and 16.2 ms chained; MPI's
  // 1 KiB on 2 ranks 0.05 ms between barriers and 0.09 ms chained, through a drained token
  // bucket.
  s.collectives = {allreduce("gloo", 22.3e-3, 16.2e-3), allreduce("mpi", 0.05e-3, 0.09e-3)};
  const model::MeasuredCost gloo = sweep_of(s, "allreduce", "gloo", 8);
  const model::MeasuredCost mpi = sweep_of(s, "allreduce", "mpi", 8);
  ASSERT_EQ(gloo.seconds.size(), 1u);
  ASSERT_EQ(mpi.seconds.size(), 1u);
  EXPECT_DOUBLE_EQ(gloo.seconds[0], 16.2e-3);
  EXPECT_DOUBLE_EQ(mpi.seconds[0], 0.05e-3);
}

TEST(SweepOf, WithoutAChainedTimeAsMeasured) {
  SystemResults s;
  s.collectives = {allreduce("gloo", 20.5e-3, -1)};  // a sweep from before chained_s
  EXPECT_DOUBLE_EQ(sweep_of(s, "allreduce", "gloo", 8).seconds.at(0), 20.5e-3);
}

// Open MPI's reduce on 4 ranks is binomial at 64 KiB (2 messages through the root) and linear at
// 256 KiB (3): LeNet-5's 192,000 B tensor goes binomially. Priced at its own algorithm's 2
// messages, each message's time read off the straight line between the two sweeps' times per
// message, not off the straight line between their times, which reaches into the linear one.
TEST(SweepOf, OpenMpisReduceBetweenSweptSizesTakesItsOwnAlgorithmsMessages) {
  const Results results =
      load_results({DTBENCH_SOURCE_DIR "/results/reference/extrapolation-netns-8-100mbit-epyc-vm"});
  const SystemResults& s = results.systems.at(0);
  const model::MeasuredCost reduce = sweep_of(s, "reduce", "mpi", 4);
  ASSERT_TRUE(reduce.messages);
  const double low = 65536, high = 262144, tensor = 192000;
  EXPECT_DOUBLE_EQ(reduce.messages(low), 2);
  EXPECT_DOUBLE_EQ(reduce.messages(tensor), 2);
  EXPECT_DOUBLE_EQ(reduce.messages(high), 3);
  const double t_low = reduce.time(low), t_high = reduce.time(high);
  const double per_message = t_low / 2 + (t_high / 3 - t_low / 2) * (tensor - low) / (high - low);
  EXPECT_NEAR(reduce.time(tensor), 2 * per_message, 1e-12);
  const double straight = t_low + (t_high - t_low) * (tensor - low) / (high - low);
  EXPECT_LT(reduce.time(tensor), 0.8 * straight);
  // Gloo's: straight lines between its times.
  EXPECT_FALSE(sweep_of(s, "allreduce", "gloo", 4).messages);
}

TEST(SweepOf, EachSizeTheMeanOverItsRepetitions) {
  SystemResults s;
  // Two rounds of one size, chained: 11.3 and 5.4 ms (Gloo's 64 B on 4 ranks of the Xeon VM).
  s.collectives = {allreduce("gloo", 10.8e-3, 11.3e-3), allreduce("gloo", 6.7e-3, 5.4e-3)};
  const model::MeasuredCost m = sweep_of(s, "allreduce", "gloo", 8);
  ASSERT_EQ(m.seconds.size(), 1u);
  EXPECT_NEAR(m.seconds[0], (11.3e-3 + 5.4e-3) / 2, 1e-15);
}

}  // namespace
}  // namespace dtbench
