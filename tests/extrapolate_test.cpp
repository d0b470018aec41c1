// The model's inputs past the ranks measured (model/extrapolate.h): a link fitted to an
// algorithm's times on several rank counts at once, and a rank's compute on more ranks from the
// compute measured on fewer.
#include "model/extrapolate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "model/cost_model.h"
#include "model/iteration_model.h"

namespace dtbench::model {
namespace {

// Each rank count's times of `time` on `link`, whose latency per step grows by `growth` for
// each rank more on a core (share: ranks / 2, as on 2 cores), at the sizes given.
std::vector<SweepPoint> points_of(const AlgorithmTime& time, const Link& link, double growth,
                                  const std::vector<int>& ranks, const std::vector<double>& sizes) {
  std::vector<SweepPoint> out;
  for (int n : ranks) {
    const double share = std::max(1.0, n / 2.0);
    const Link at{link.latency_s + growth * (share - 1), link.bytes_per_s, link.burst_bytes};
    for (double bytes : sizes) out.push_back({n, bytes, time(n, bytes, at), share});
  }
  return out;
}

const std::vector<double> kSmall = {64, 256}, kSent = {9600, 40320, 192000, 4e6};

// A ring allreduce's link fitted through its token bucket to the times on 2 and 4 ranks (of
// 2 cores) that `link` and `growth` give.
FittedLink ring_fitted(const Link& link, double growth, Waits waits = Waits::spin) {
  return fit_link_across(points_of(ring_allreduce_s, link, growth, {2, 4}, kSmall),
                         points_of(ring_allreduce_s, link, growth, {2, 4}, kSent), ring_allreduce_s,
                         link.burst_bytes, /*relative=*/false, waits);
}

TEST(FitLinkAcross, RecoversTheLinkOfEachFormulaFromTwoRankCounts) {
  // 10 Gbit/s: the small messages' bytes take well under a microsecond.
  const Link link{20e-6, 1.15e9};
  const double growth = 30e-6;
  for (const AlgorithmTime& time :
       std::vector<AlgorithmTime>{ring_allreduce_s, gather_scatter_s, chain_reduce_broadcast_s,
                                  tree_reduce_broadcast_s, ring_allgather_s}) {
    const FittedLink fit = fit_link_across(points_of(time, link, growth, {2, 4}, kSmall),
                                           points_of(time, link, growth, {2, 4}, kSent), time);
    ASSERT_TRUE(fit.found);
    // The latency comes from the small messages (whose bytes' own time it absorbs).
    EXPECT_NEAR(fit.link.latency_s, link.latency_s, 1e-6);
    EXPECT_NEAR(fit.latency_per_share_s, growth, 1e-6);
    EXPECT_NEAR(fit.link.bytes_per_s, link.bytes_per_s, 0.01 * link.bytes_per_s);
    // And so the time on 8 ranks, 4 to a core, which no point measured.
    const Link eight{link.latency_s + 3 * growth, link.bytes_per_s};
    EXPECT_NEAR(time(8, 192e3, fit.at(4)), time(8, 192e3, eight), 0.01 * time(8, 192e3, eight));
  }
}

TEST(FitLinkAcross, OneShareNoGrowth) {
  const Link link{20e-6, 11.5e6};
  const auto small = points_of(ring_allreduce_s, link, 0, {2}, kSmall);
  const FittedLink fit =
      fit_link_across(small, points_of(ring_allreduce_s, link, 0, {2}, kSent), ring_allreduce_s);
  ASSERT_TRUE(fit.found);
  EXPECT_EQ(fit.latency_per_share_s, 0);
  EXPECT_NEAR(fit.link.bytes_per_s, link.bytes_per_s, 0.01 * link.bytes_per_s);
}

TEST(FitLinkAcross, LatencyThatFallsWithTheShareIsNotGrowth) {
  // Small messages faster on more ranks per core, spinning: no negative growth; the latency
  // alone.
  std::vector<SweepPoint> small = {{2, 64, 100e-6, 1}, {4, 64, 120e-6, 2}};
  const FittedLink fit = fit_link_across(
      small, points_of(ring_allreduce_s, {0, 1e7}, 0, {2, 4}, kSent), ring_allreduce_s);
  ASSERT_TRUE(fit.found);
  EXPECT_EQ(fit.latency_per_share_s, 0);
  EXPECT_GT(fit.link.latency_s, 0);
}

TEST(FitLinkAcross, SleepingWaitsMayFallOnceTheRanksOutnumberTheCores) {
  // Gloo on 2 cores, its 2-rank sweep read after a rest: a step holds the idle core's wake-up
  // (1.19 ms on the EPYC VM), more than a step waits to be scheduled on 4 ranks (1.06 ms).
  const Link link{1.19e-3, 11.5e6, 31.3e3};
  const double growth = -0.13e-3;
  const FittedLink fit = ring_fitted(link, growth, Waits::sleep);
  ASSERT_TRUE(fit.found);
  EXPECT_NEAR(fit.latency_per_share_s, growth, 1e-6);
  EXPECT_NEAR(fit.at(4).latency_s, link.latency_s + growth, 1e-6);
  // Spinning ranks' waits do not fall: the latency alone.
  const FittedLink spin = ring_fitted(link, growth);
  EXPECT_EQ(spin.latency_per_share_s, 0);
}

TEST(FitLinkAcross, RecoversALinkThroughItsTokenBucket) {
  // The emulated cluster at 100 Mbit/s: a 32 KB bucket, and a latency per step of a millisecond
  // that grows with the ranks per core, as Gloo's on 2 cores. Read as Hockney's sum the mid
  // sizes would look slow; through the bucket, the rate is the link's.
  const Link link{1e-3, 11.9e6, 31.3e3};
  const double growth = 0.2e-3;
  const FittedLink fit = ring_fitted(link, growth);
  ASSERT_TRUE(fit.found);
  EXPECT_NEAR(fit.link.latency_s, link.latency_s, 1e-6);
  EXPECT_NEAR(fit.link.bytes_per_s, link.bytes_per_s, 0.001 * link.bytes_per_s);
  EXPECT_EQ(fit.at(4).burst_bytes, link.burst_bytes);
  const Link eight{link.latency_s + 3 * growth, link.bytes_per_s, link.burst_bytes};
  EXPECT_NEAR(ring_allreduce_s(8, 192e3, fit.at(4)), ring_allreduce_s(8, 192e3, eight),
              0.001 * ring_allreduce_s(8, 192e3, eight));
}

TEST(FitLinkAcross, SleepingWaitsStopGrowingOnceTheRanksOutnumberTheCores) {
  // Gloo's ranks block while they wait: on 2 cores a step waited longer on 4 ranks than on 2,
  // and hardly longer on 8 than on 4 (the emulated cluster, messages of 64 B, chained: 0.6,
  // 0.9-1.9 and 1.1-1.2 ms per step). The growth fitted on 2 and 4 ranks is counted once on 8.
  const Link link{0.7e-3, 11.9e6, 31.3e3};
  const double growth = 0.4e-3;
  const FittedLink fit = ring_fitted(link, growth, Waits::sleep);
  ASSERT_TRUE(fit.found);
  EXPECT_NEAR(fit.latency_per_share_s, growth, 1e-6);
  EXPECT_NEAR(fit.at(4).latency_s, link.latency_s + growth, 1e-6);
  EXPECT_NEAR(fit.at(2).latency_s, link.latency_s + growth, 1e-6);
  EXPECT_NEAR(fit.at(1).latency_s, link.latency_s, 1e-6);
  // Spinning ranks (the default) keep growing: each rank more on a core waits its turn.
  const FittedLink spin = ring_fitted(link, growth);
  EXPECT_NEAR(spin.at(4).latency_s, link.latency_s + 3 * growth, 1e-6);
}

TEST(FitLinkAcross, SleepingWaitsMeasuredAtTwoSharesPastOneGrowAsMeasured) {
  // Gloo on the EPYC VM's 2 cores, swept on 2, 4 and 8 ranks (1, 2 and 4 a core): its step
  // waited 1.21 ms on 4 ranks and 1.40 on 8 (extrapolation-16-netns-16-100mbit-epyc-vm). Two
  // shares past one measure how the wait grows past the first: 16 ranks (8 a core) take that
  // growth, not the term counted once.
  const Link link{0.96e-3, 11.5e6, 31.3e3};
  const double growth = 0.15e-3;
  const auto small = points_of(ring_allreduce_s, link, growth, {2, 4, 8}, kSmall);
  const auto sent = points_of(ring_allreduce_s, link, growth, {2, 4, 8}, kSent);
  const FittedLink fit = fit_link_across(small, sent, ring_allreduce_s, link.burst_bytes,
                                         /*relative=*/false, Waits::sleep);
  ASSERT_TRUE(fit.found);
  EXPECT_NEAR(fit.link.latency_s, link.latency_s, 1e-6);
  EXPECT_NEAR(fit.latency_per_share_s, growth, 1e-6);
  EXPECT_NEAR(fit.latency_past_two_s, growth, 1e-6);
  EXPECT_NEAR(fit.at(8).latency_s, link.latency_s + 7 * growth, 1e-6);
  // On 2 and 4 ranks alone (one share past one) the growth is counted once.
  const FittedLink once = ring_fitted(link, growth, Waits::sleep);
  EXPECT_EQ(once.latency_past_two_s, 0);
  EXPECT_NEAR(once.at(8).latency_s, link.latency_s + growth, 1e-6);
  // A wait that grew from one rank a core to two and no further (the Xeon VM: 0.6, 0.9-1.9 and
  // 1.1-1.2 ms per step) stays counted once.
  std::vector<SweepPoint> level;
  for (const auto& p : points_of(ring_allreduce_s, link, 0, {2}, kSmall)) level.push_back(p);
  const Link waited{link.latency_s + growth, link.bytes_per_s, link.burst_bytes};
  for (auto p : points_of(ring_allreduce_s, waited, 0, {4, 8}, kSmall)) {
    p.share = p.ranks / 2.0;
    level.push_back(p);
  }
  const FittedLink flat =
      fit_link_across(level, sent, ring_allreduce_s, link.burst_bytes, false, Waits::sleep);
  ASSERT_TRUE(flat.found);
  EXPECT_EQ(flat.latency_past_two_s, 0);
  EXPECT_NEAR(flat.at(8).latency_s, link.latency_s + growth, 2e-6);
}

TEST(FitLinkAcross, NoPointsNoLink) {
  EXPECT_FALSE(fit_link_across({}, {}, ring_allreduce_s).found);
}

// A phase of share x (a + b x batch): a fixed cost per rank and a cost per sample.
ComputeAt measured(double share, double batch) {
  ComputeAt at{share, batch, {}};
  auto phase = [&](double a, double b) { return share * (a + b * batch); };
  at.profile.data_s = phase(1e-3, 0);
  at.profile.forward_s = phase(2e-3, 1e-4);
  at.profile.backward_s = phase(3e-3, 2e-4);
  at.profile.optimizer_s = phase(1e-3, 0);
  at.profile.straggler_s = phase(0, 1e-5);
  at.profile.tensor_bytes = {100, 200};
  at.profile.ready_s = {0.9 * at.profile.backward_s, 0.4 * at.profile.backward_s};
  return at;
}

TEST(ComputeAt, FollowsTheRanksThatShareACore) {
  // 64 samples on 2 cores: 2 ranks of 32 each on a core, 4 of 16 two to a core; then 8 of 8.
  const ComputeProfile eight = compute_at({measured(1, 32), measured(2, 16)}, 4, 8);
  const ComputeProfile expected = measured(4, 8).profile;
  EXPECT_NEAR(eight.data_s, expected.data_s, 1e-12);
  EXPECT_NEAR(eight.forward_s, expected.forward_s, 1e-12);
  EXPECT_NEAR(eight.backward_s, expected.backward_s, 1e-12);
  EXPECT_NEAR(eight.optimizer_s, expected.optimizer_s, 1e-12);
  EXPECT_NEAR(eight.straggler_s, expected.straggler_s, 1e-12);
  ASSERT_EQ(eight.ready_s.size(), 2U);
  EXPECT_NEAR(eight.ready_s[0], 0.9 * expected.backward_s, 1e-12);
  EXPECT_NEAR(eight.ready_s[1], 0.4 * expected.backward_s, 1e-12);
  EXPECT_EQ(eight.tensor_bytes, expected.tensor_bytes);
}

TEST(ComputeAt, OneRankPerMachineSplitsTheBatch) {
  // Every rank with its own cores: share 1, only the batch changes.
  const ComputeProfile eight = compute_at({measured(1, 32), measured(1, 16)}, 1, 8);
  EXPECT_NEAR(eight.backward_s, measured(1, 8).profile.backward_s, 1e-12);
}

TEST(ComputeAt, NeverBelowZero) {
  ComputeAt two = measured(1, 32), four = measured(2, 16);
  two.profile.straggler_s = 0.01, four.profile.straggler_s = 0.001;  // falling fast
  EXPECT_EQ(compute_at({two, four}, 4, 8).straggler_s, 0);
}

TEST(ComputeAt, NeedsTwoMeasurementsThatDiffer) {
  EXPECT_THROW(compute_at({measured(1, 32)}, 4, 8), std::invalid_argument);
  EXPECT_THROW(compute_at({measured(2, 16), measured(2, 16)}, 4, 8), std::invalid_argument);
  EXPECT_THROW(compute_at({}, 4, 8), std::invalid_argument);
}

}  // namespace
}  // namespace dtbench::model
