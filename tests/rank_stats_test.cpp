// Each rank's percentiles over iterations 1..39 from the record's raw per-rank samples, and the
// rank furthest behind.
#include "stats/rank_stats.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace dtbench {
namespace {

using ::testing::HasSubstr;

// 41 iterations: iteration 0 (outside the window) takes 9 s; iteration k of 1..39 takes
// base + k ms; iteration 40 (outside too) 9 s.
RankUsage rank_of(int rank, double base_s) {
  RankUsage r;
  r.rank = rank;
  r.host = "h" + std::to_string(rank);
  for (int k = 0; k <= 40; ++k) {
    const double t = k == 0 || k == 40 ? 9.0 : base_s + 0.001 * k;
    r.iteration_s.push_back(t);
    for (size_t p = 0; p < kPhaseCount; ++p) r.phase_s[p].push_back(t / kPhaseCount);
  }
  return r;
}

TEST(RankStats, PercentilesOfTheTimedWindowPerRank) {
  RunRecord record;
  record.ranks = {rank_of(1, 0.5), rank_of(0, 0.4), rank_of(2, 0.4)};
  const RankSpread s = rank_spread(record);
  ASSERT_EQ(s.ranks.size(), 3u);
  EXPECT_EQ(s.ranks[0].rank, 0);  // in rank order
  // Iterations 1..39 of rank 1: 0.501 .. 0.539 s; p50 the 20th, p95 and p99 interpolated.
  const RankStats& one = s.ranks[1];
  EXPECT_NEAR(one.iteration.p50, 0.520, 1e-9);
  EXPECT_NEAR(one.iteration.p95, 0.501 + 0.95 * 38 * 0.001, 1e-9);
  EXPECT_NEAR(one.iteration.p99, 0.501 + 0.99 * 38 * 0.001, 1e-9);
  EXPECT_TRUE(one.has_phases);
  EXPECT_NEAR(one.phase[2].p50, 0.520 / kPhaseCount, 1e-9);
  EXPECT_EQ(s.slowest, 1);
  EXPECT_EQ(s.fastest, 0);
  EXPECT_NEAR(s.spread, 0.520 / 0.420 - 1, 1e-9);
  EXPECT_THAT(rank_spread_text(s),
              HasSubstr("ranks' p50 0.420-0.520 s (+23.8%), slowest rank 1 (h1)"));
}

// Rank 2 computes 50 ms longer (its forward), the others wait for it in sync: named, with both.
TEST(RankStats, TheRankWhoseComputeIsLongestIsBehind) {
  RunRecord record;
  for (int rank = 0; rank < 4; ++rank) {
    RankUsage r;
    r.rank = rank;
    r.host = "h" + std::to_string(rank);
    std::vector<double> data(40, 0.001), forward(40, rank == 2 ? 0.060 : 0.010),
        backward(40, 0.020), sync(40, rank == 2 ? 0.002 : 0.052), optimizer(40, 0.001);
    r.phase_s = {data, forward, backward, sync, optimizer};
    r.iteration_s = std::vector<double>(40, 0.084);
    record.ranks.push_back(r);
  }
  const RankSpread s = rank_spread(record);
  EXPECT_EQ(s.behind, 2);
  EXPECT_NEAR(s.behind_by_s, 0.050, 1e-12);
  EXPECT_NEAR(s.others_wait_s, 0.050, 1e-12);
  EXPECT_THAT(rank_spread_text(s), HasSubstr("rank 2 (h2) computes longest, +0.050 s over the "
                                             "others' median, and they wait 0.050 s longer"));
  // Equal syncs: the one computing longest is named, but nobody waits for it.
  for (auto& r : record.ranks) r.phase_s[3] = std::vector<double>(40, 0.010);
  EXPECT_THAT(rank_spread_text(rank_spread(record)),
              HasSubstr("over the others' median, and the others wait no longer in sync"));
}

TEST(RankStats, AnOlderRecordWithoutPhasesOrRanks) {
  RunRecord record;
  EXPECT_TRUE(rank_spread(record).ranks.empty());
  EXPECT_EQ(rank_spread_text(rank_spread(record)), "");
  RankUsage old = rank_of(0, 0.4);
  for (auto& p : old.phase_s) p.clear();
  record.ranks = {old};
  const RankSpread s = rank_spread(record);
  ASSERT_EQ(s.ranks.size(), 1u);
  EXPECT_FALSE(s.ranks[0].has_phases);
  EXPECT_THAT(rank_spread_text(s), HasSubstr("p50 0.420 s"));
}

}  // namespace
}  // namespace dtbench
