// Open MPI's reduce, broadcast and allgather as the model prices them (model/openmpi_tuned.h): the
// fixed rules' choices, each algorithm's messages on the busiest path, and both held against the
// sweeps a committed directory measured on 2, 4 and 8 hosts.
#include <gtest/gtest.h>

#include <string>

#include "model/iteration_model.h"
#include "model/openmpi_tuned.h"
#include "report/predict/model_inputs.h"
#include "report/read/results.h"

namespace dtbench::model {
namespace {

constexpr double kKiB = 1024, kMiB = 1024 * 1024;
const Link kNoLatency{0, 1e8, 0};  // a message of S bytes takes S / 1e8 s

double messages(double seconds, double bytes) {
  return seconds / kNoLatency.time(bytes);
}

TEST(OpenMpiTuned, TheFixedRulesChoiceBySizeAndRanks) {
  EXPECT_EQ(tuned_bcast(2, kMiB), TunedBcast::binary);
  EXPECT_EQ(tuned_bcast(4, 64 * kKiB), TunedBcast::linear);
  EXPECT_EQ(tuned_bcast(4, kMiB), TunedBcast::chain);
  EXPECT_EQ(tuned_bcast(8, 64 * kKiB), TunedBcast::linear);
  EXPECT_EQ(tuned_bcast(8, 4 * kKiB), TunedBcast::binary);
  EXPECT_EQ(tuned_bcast(16, 4 * kMiB), TunedBcast::scatter_allgather);
  EXPECT_EQ(tuned_bcast(1024, kMiB), TunedBcast::scatter_allgather);
  EXPECT_EQ(tuned_reduce(2, 64 * kKiB), TunedReduce::linear);
  EXPECT_EQ(tuned_reduce(4, 16 * kKiB), TunedReduce::chain);
  EXPECT_EQ(tuned_reduce(4, 64 * kKiB), TunedReduce::binomial);
  EXPECT_EQ(tuned_reduce(4, kMiB), TunedReduce::linear);
  EXPECT_EQ(tuned_reduce(8, kMiB), TunedReduce::binomial);
  EXPECT_EQ(tuned_reduce(8, 4 * kKiB), TunedReduce::binary);
  EXPECT_EQ(tuned_allgather(2, 4), TunedAllgather::two_proc);
  EXPECT_EQ(tuned_allgather(2, kMiB), TunedAllgather::two_proc);
  EXPECT_EQ(tuned_allgather(4, 64), TunedAllgather::recursive_doubling);
  EXPECT_EQ(tuned_allgather(8, kMiB), TunedAllgather::recursive_doubling);
  EXPECT_EQ(tuned_allgather(31, 16 * kMiB), TunedAllgather::recursive_doubling);
  EXPECT_EQ(tuned_allgather(32, 512), TunedAllgather::recursive_doubling);
  EXPECT_EQ(tuned_allgather(32, 4 * kKiB), TunedAllgather::neighbor);
  EXPECT_EQ(tuned_allgather(32, kMiB), TunedAllgather::ring);
  EXPECT_EQ(tuned_allgather(300, 64), TunedAllgather::bruck);
  EXPECT_EQ(tuned_allgather(8192, kMiB), TunedAllgather::neighbor);
}

TEST(OpenMpiTuned, EachAlgorithmIsItsTreesMessagesOneAfterTheOther) {
  // The root sends to each rank (linear), along a chain, or down a binary tree: 1 -> {3, 5},
  // 2 -> {4, 6}, 3 -> 7 reaches rank 6 after 4 messages.
  EXPECT_DOUBLE_EQ(messages(openmpi_bcast_s(8, kMiB, kNoLatency), kMiB), 7);
  EXPECT_DOUBLE_EQ(messages(openmpi_bcast_s(4, kMiB, kNoLatency), kMiB), 3);
  EXPECT_DOUBLE_EQ(messages(openmpi_bcast_s(2, kMiB, kNoLatency), kMiB), 1);
  EXPECT_DOUBLE_EQ(messages(openmpi_bcast_s(8, 4 * kKiB, kNoLatency), 4 * kKiB), 4);
  // The root takes 3 partial sums (linear on 4 ranks), or log2 n of them in turn (binomial).
  EXPECT_DOUBLE_EQ(messages(openmpi_reduce_s(4, kMiB, kNoLatency), kMiB), 3);
  EXPECT_DOUBLE_EQ(messages(openmpi_reduce_s(4, 64 * kKiB, kNoLatency), 64 * kKiB), 2);
  EXPECT_DOUBLE_EQ(messages(openmpi_reduce_s(8, kMiB, kNoLatency), kMiB), 3);
  EXPECT_DOUBLE_EQ(messages(openmpi_reduce_s(16, kMiB, kNoLatency), kMiB), 4);
  EXPECT_EQ(openmpi_bcast_s(1, kMiB, kNoLatency), 0);
  // reduce_broadcast over MPI is the two; over another backend, binomial trees.
  EXPECT_DOUBLE_EQ(tensor_sync_s("reduce_broadcast", 8, kMiB, kNoLatency, "mpi"),
                   openmpi_reduce_s(8, kMiB, kNoLatency) + openmpi_bcast_s(8, kMiB, kNoLatency));
  EXPECT_DOUBLE_EQ(messages(tensor_sync_s("reduce_broadcast", 8, kMiB, kNoLatency, "gloo"), kMiB),
                   6);
}

// Through token buckets, reduce_broadcast's broadcast goes out of ways its reduce left resting:
// on 2 ranks the reduce takes rank 1's way out and rank 0's way in, the broadcast the other two,
// and each pair refills while the other sends. Where a half takes longer than a bucket's depth at
// the rate (192,000 B at 100 Mbit/s), every call finds all four full, and the two made apart,
// each back to back with itself on two drained ways, take a depth more in each direction. Where
// a half is shorter (40,320 B), a pair refills during the other half what it sends beyond that:
// the call settles at half the time of the two apart.
TEST(OpenMpiTuned, TheBroadcastAfterItsReduceGoesOutOfRestedWays) {
  const Link shaped{0, 12e6, 31e3};  // the emulated cluster's 100 Mbit/s, roughly
  const auto apart = [&shaped](double bytes) {
    return openmpi_reduce_s(2, bytes, shaped) + openmpi_bcast_s(2, bytes, shaped);
  };
  EXPECT_NEAR(apart(192000) - openmpi_reduce_bcast_s(2, 192000, shaped),
              2 * shaped.burst_bytes / shaped.bytes_per_s, 1e-9);
  EXPECT_NEAR(openmpi_reduce_bcast_s(2, 40320, shaped), apart(40320) / 2, 1e-9);
  for (double bytes : {40320.0, 192000.0}) {
    EXPECT_DOUBLE_EQ(tensor_sync_s("reduce_broadcast", 2, bytes, shaped, "mpi"),
                     openmpi_reduce_bcast_s(2, bytes, shaped));
    EXPECT_DOUBLE_EQ(tensor_sync_s("reduce_broadcast", 2, bytes, shaped, "mpi", /*apart=*/true),
                     apart(bytes));
  }
  // Without a bucket, the same.
  EXPECT_DOUBLE_EQ(openmpi_reduce_bcast_s(8, kMiB, kNoLatency),
                   openmpi_reduce_s(8, kMiB, kNoLatency) + openmpi_bcast_s(8, kMiB, kNoLatency));
}

// The emulated cluster at 100 Mbit/s on 2, 4 and 8 hosts: each sweep's time over the 2-rank
// sweep's (one message there, whatever the algorithm) is the messages the path takes.
TEST(OpenMpiTuned, MessagesAsTheSweepsOnTwoFourAndEightHostsTookThem) {
  const Results results = load_results(
      {DTBENCH_SOURCE_DIR "/results/reference/extrapolation-netns-8-100mbit-epyc-vm-frag8k"});
  const SystemResults& s = results.systems.at(0);
  int compared = 0;
  for (const std::string op : {"reduce", "broadcast"}) {
    const MeasuredCost two = sweep_of(s, op, "mpi", 2);
    ASSERT_GE(two.bytes.size(), 3U) << op;
    for (int n : {4, 8}) {
      const MeasuredCost many = sweep_of(s, op, "mpi", n);
      for (double bytes : {64 * kKiB, 256 * kKiB, kMiB}) {
        const double measured = many.time(bytes) / two.time(bytes);
        const double priced = op == "reduce" ? openmpi_reduce_s(n, bytes, kNoLatency)
                                             : openmpi_bcast_s(n, bytes, kNoLatency);
        EXPECT_NEAR(measured, messages(priced, bytes), 0.1 * measured)
            << op << " of " << bytes << " B on " << n << " ranks";
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 12);
}

// The same hosts: an allgather's rate a rank is its algorithm's. With OpenMPI's own 128 KiB TCP
// fragments one exchange on 2 hosts goes at the link's rate and recursive doubling on 4 at a
// lower one (its exchanges back to back), so the 4 hosts' sweep, not the 2 hosts', tells the 8
// hosts' (what the extrapolation fits the rate to); with 8 KiB fragments the two go alike, and 8
// hosts as 4.
TEST(OpenMpiTuned, AnAllgathersRateIsItsAlgorithms) {
  const auto system = [](const std::string& dir) {
    return load_results({DTBENCH_SOURCE_DIR "/results/reference/" + dir}).systems.at(0);
  };
  const SystemResults large = system("fragments-netns-4-100mbit-epyc-vm");
  const SystemResults small = system("extrapolation-netns-8-100mbit-epyc-vm-frag8k");
  const auto rate = [](const SystemResults& s, int n, double whole) {  // a rank's intake, per s
    return whole * (n - 1) / n / sweep_of(s, "allgather", "mpi", n).time(whole);
  };
  for (double whole : {256 * kKiB, kMiB}) {
    EXPECT_GT(rate(large, 2, whole), 1.5 * rate(large, 4, whole)) << whole << " B";
    EXPECT_NEAR(rate(small, 2, whole), rate(small, 4, whole), 0.15 * rate(small, 4, whole))
        << whole << " B";
    EXPECT_NEAR(rate(small, 8, whole), rate(small, 4, whole), 0.15 * rate(small, 4, whole))
        << whole << " B";
  }
  EXPECT_NE(tuned_allgather(2, kMiB / 2), tuned_allgather(8, kMiB / 8));
  EXPECT_EQ(tuned_allgather(4, kMiB / 4), tuned_allgather(8, kMiB / 8));
}

}  // namespace
}  // namespace dtbench::model
