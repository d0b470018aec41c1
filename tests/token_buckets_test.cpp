// Token buckets that refill while their links rest (model/token_buckets.h): without a bucket the
// closed forms, a chain's hops worked by hand, and the ring reduce's sweeps on 8 hosts priced
// from the fit on 2 and 4 hosts.
#include <gtest/gtest.h>

#include <vector>

#include "model/cost_model.h"
#include "model/extrapolate.h"
#include "model/openmpi_tuned.h"
#include "model/token_buckets.h"
#include "report/predict/model_inputs.h"
#include "report/read/results.h"

namespace dtbench::model {
namespace {

constexpr double kKiB = 1024;

TEST(TokenBuckets, WithoutABucketEachMessageTakesTheLinksTime) {
  const Link link{20e-6, 1e7, 0};
  for (int n : {2, 3, 8}) {
    EXPECT_NEAR(chain_reduce_broadcast_s(n, 5000, link), 2.0 * (n - 1) * link.time(5000), 1e-12);
  }
  Buckets b(2, link);
  EXPECT_NEAR(b.send(0, 1, 5000, 1.0), 1.0 + link.time(5000), 1e-12);
  EXPECT_NEAR(b.send(0, 1, 5000, 1.0 + link.time(5000)), 1.0 + 2 * link.time(5000), 1e-12);
}

TEST(TokenBuckets, AFullBucketSendsAtOnceAndAnEmptyOneAtTheRate) {
  const Link link{0, 1e6, 10000};  // 10 kB of burst, refilled in 10 ms
  Buckets b(3, link);
  EXPECT_DOUBLE_EQ(b.send(0, 1, 4000, 0), 0);            // 6 kB left
  EXPECT_NEAR(b.send(0, 1, 10000, 0), 0.004, 1e-12);     // 6 kB at once, 4 kB at the rate
  EXPECT_NEAR(b.send(0, 1, 3000, 0.005), 0.007, 1e-12);  // 1 kB refilled in 1 ms, 2 kB to wait
  // Another sender, whose way out is full, into the same way in: as slow as that one is empty.
  EXPECT_NEAR(b.send(2, 1, 1000, 0.007), 0.008, 1e-12);
}

TEST(TokenBuckets, AChainsHopsFindTheirLinksRefilledByTheOthersHops) {
  // Two ranks: 1 -> 0, then 0 -> 1, calls back to back. Each link rests while the other hops,
  // so a hop of S (at most twice the burst) takes t with t = (S - rate t) / rate: S / (2 rate),
  // half of what a link kept busy takes.
  const Link link{0, 1e6, 10000};
  EXPECT_NEAR(chain_reduce_broadcast_s(2, 8000, link), 2 * 8000 / 2e6, 1e-9);
  EXPECT_NEAR(chain_reduce_broadcast_s(2, 2 * 10000, link), 2 * 20000 / 2e6, 1e-9);
  // Past twice the burst, each hop waits for all but the burst.
  EXPECT_NEAR(chain_reduce_broadcast_s(2, 50000, link), 2 * (50000 - 10000) / 1e6, 1e-9);
  // A message within the burst that found every bucket full costs only the latency.
  const Link slow_hops{0.01, 1e6, 10000};
  EXPECT_NEAR(chain_reduce_broadcast_s(4, 9000, slow_hops), 6 * 0.01, 1e-9);
}

TEST(TokenBuckets, TreesWithoutABucketAreTheirMessagesOneAfterTheOther) {
  const Link link{0, 1e8, 0};
  EXPECT_NEAR(openmpi_bcast_s(8, 64 * kKiB, link), 7 * link.time(64 * kKiB), 1e-12);  // linear
  EXPECT_NEAR(openmpi_reduce_s(8, 1024 * kKiB, link), 3 * link.time(1024 * kKiB), 1e-12);
}

// The course's ring reduce on the emulated cluster at 100 Mbit/s: its sweeps on 2 and 4 hosts
// fit the chain's latency and rate, which price the 8 hosts' sweep. Through buckets that refill
// while the other links hop, every size within half again of what 8 hosts measured; charged as
// if every link were busy (Link::time alone), 16 KiB would come out several times too slow.
TEST(TokenBuckets, TheRingReducesSweepOnEightHostsFromTheFitOnTwoAndFour) {
  const Results results = load_results(
      {DTBENCH_SOURCE_DIR "/results/reference/extrapolation-netns-8-100mbit-epyc-vm-frag8k"});
  const SystemResults& s = results.systems.at(0);
  std::vector<SweepPoint> small, sent;
  for (int n : {2, 4}) {
    const MeasuredCost sweep = sweep_of(s, "ring_reduce", "mpi", n);
    ASSERT_GE(sweep.bytes.size(), 5U);
    for (double bytes : sweep.bytes) {
      const SweepPoint p{n, bytes, sweep.time(bytes), n / 2.0};
      if (bytes >= 64 && bytes <= 256) small.push_back(p);
      if (bytes >= 16 * kKiB && bytes <= 256 * kKiB) sent.push_back(p);
    }
  }
  const FittedLink fit = fit_link_across(small, sent, chain_reduce_broadcast_s,
                                         bucket_between_hosts(s), /*relative=*/false, Waits::spin);
  ASSERT_TRUE(fit.found);
  EXPECT_GT(fit.link.bytes_per_s, 10e6);  // the emulated link's 12 MB/s of payload, about
  EXPECT_LT(fit.link.bytes_per_s, 13e6);
  const MeasuredCost eight = sweep_of(s, "ring_reduce", "mpi", 8);
  for (double bytes : {16 * kKiB, 64 * kKiB, 256 * kKiB}) {
    const double ratio = chain_reduce_broadcast_s(8, bytes, fit.at(4)) / eight.time(bytes);
    EXPECT_GT(ratio, 1 / 1.5) << bytes << " B";
    EXPECT_LT(ratio, 1.5) << bytes << " B";
  }
  const double busy = 14 * fit.at(4).time(16 * kKiB) / eight.time(16 * kKiB);
  EXPECT_GT(busy, 3) << "every link busy";
}

}  // namespace
}  // namespace dtbench::model
