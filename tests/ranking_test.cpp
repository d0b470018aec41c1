// Kendall's tau-b between measured and predicted order, measurements within each other's noise
// tied: hand-made tables, worked by hand.
#include "report/read/ranking.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

namespace dtbench {
namespace {

const auto kNoNoise = [](size_t, size_t) { return false; };

TEST(Ranking, TheSameOrderIsOneAndTheReverseMinusOne) {
  const RankAgreement same = rank_agreement({1, 2, 3, 4, 5}, {10, 20, 30, 40, 50}, kNoNoise);
  EXPECT_EQ(same.pairs, 10);
  EXPECT_EQ(same.concordant, 10);
  EXPECT_DOUBLE_EQ(same.tau_b, 1.0);
  EXPECT_TRUE(same.preserved());
  const RankAgreement reverse = rank_agreement({1, 2, 3, 4, 5}, {5, 4, 3, 2, 1}, kNoNoise);
  EXPECT_EQ(reverse.discordant, 10);
  EXPECT_DOUBLE_EQ(reverse.tau_b, -1.0);
  EXPECT_FALSE(reverse.preserved());
}

TEST(Ranking, OneSwappedPairIsNamed) {
  // Pairs: 5 alike, (1, 2) the other way: (5 - 1) / 6.
  const RankAgreement a = rank_agreement({1, 2, 3, 4}, {1, 3, 2, 4}, kNoNoise);
  EXPECT_EQ(a.concordant, 5);
  EXPECT_EQ(a.discordant, 1);
  EXPECT_NEAR(a.tau_b, 4.0 / 6.0, 1e-12);
  ASSERT_EQ(a.swapped.size(), 1u);
  EXPECT_EQ(a.swapped[0], std::make_pair(size_t{1}, size_t{2}));
}

TEST(Ranking, MeasurementsWithinTheNoiseAreTiedNotSwapped) {
  // Items 1 and 2 within each other's noise: 5 alike, none the other way, one tie on the
  // measured side: 5 / sqrt((6 - 1) * (6 - 0)).
  const auto noisy = [](size_t i, size_t j) { return i + j == 3 && i != 0 && j != 0; };
  const RankAgreement a = rank_agreement({1, 2, 3, 4}, {1, 3, 2, 4}, noisy);
  EXPECT_EQ(a.tied_measured, 1);
  EXPECT_EQ(a.discordant, 0);
  EXPECT_TRUE(a.preserved());
  EXPECT_NEAR(a.tau_b, 5.0 / std::sqrt(30.0), 1e-12);
  // Equal measurements and equal predictions are ties too, on their own side.
  const RankAgreement equal_measured = rank_agreement({1, 2, 2, 4}, {1, 3, 2, 4}, kNoNoise);
  EXPECT_EQ(equal_measured.tied_measured, 1);
  EXPECT_NEAR(equal_measured.tau_b, 5.0 / std::sqrt(30.0), 1e-12);
  const RankAgreement equal_predicted = rank_agreement({1, 2, 3, 4}, {1, 1, 3, 4}, kNoNoise);
  EXPECT_EQ(equal_predicted.tied_predicted, 1);
  EXPECT_EQ(equal_predicted.tied_measured, 0);
  EXPECT_NEAR(equal_predicted.tau_b, 5.0 / std::sqrt(30.0), 1e-12);
  // Equal to the 0.1 ms a table prints: tied; 0.1 ms apart: ordered.
  const RankAgreement printed_equal =
      rank_agreement({1, 2, 3, 4}, {1.82187, 1.82191, 3, 4}, kNoNoise);
  EXPECT_EQ(printed_equal.tied_predicted, 1);
  EXPECT_EQ(rank_agreement({1, 2, 3, 4}, {1.8219, 1.8218, 3, 4}, kNoNoise).discordant, 1);
}

TEST(Ranking, OnlyComparablePairsAreOrdered) {
  // Two workloads, items {0, 1} and {2, 3}: the model swaps 1 and 2, which belong to neither
  // workload's pairs; within each the order holds: 2 pairs, both alike.
  const auto same_workload = [](size_t i, size_t j) { return i / 2 == j / 2; };
  const RankAgreement a = rank_agreement({1, 2, 3, 4}, {1, 3, 2.5, 4}, kNoNoise, same_workload);
  EXPECT_EQ(a.pairs, 2);
  EXPECT_EQ(a.concordant, 2);
  EXPECT_TRUE(a.preserved());
  EXPECT_DOUBLE_EQ(a.tau_b, 1.0);
  // Every pair comparable: that swap counts.
  EXPECT_EQ(rank_agreement({1, 2, 3, 4}, {1, 3, 2.5, 4}, kNoNoise).discordant, 1);
}

TEST(Ranking, AllTiedHasNoTau) {
  const RankAgreement a = rank_agreement({1, 2}, {1, 2}, [](size_t, size_t) { return true; });
  EXPECT_TRUE(std::isnan(a.tau_b));
  EXPECT_TRUE(a.preserved());
  EXPECT_EQ(rank_agreement({}, {}, kNoNoise).pairs, 0);
}

}  // namespace
}  // namespace dtbench
