// The rank-aware sampler: shares are disjoint, complete, equal, change with the epoch, and
// batch i of all ranks together is batch i of a single process with the n-times batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "plan/sampler.h"

namespace dtbench {
namespace {

class Shards : public ::testing::TestWithParam<std::tuple<int64_t, int>> {};

TEST_P(Shards, AreDisjointCompleteAndEqual) {
  auto [size, world] = GetParam();
  std::multiset<int64_t> seen;
  size_t share = 0;
  for (int rank = 0; rank < world; ++rank) {
    ShardSampler s(size, world, rank, /*seed=*/3, /*shuffle=*/true);
    s.set_epoch(1);
    if (rank == 0) share = s.indices().size();
    EXPECT_EQ(s.indices().size(), share);
    seen.insert(s.indices().begin(), s.indices().end());
  }
  std::set<int64_t> distinct(seen.begin(), seen.end());
  EXPECT_EQ(static_cast<int64_t>(distinct.size()), size);  // complete
  EXPECT_EQ(*distinct.begin(), 0);
  EXPECT_EQ(*distinct.rbegin(), size - 1);
  // Disjoint up to the wrap-around padding that makes the shares equal.
  EXPECT_EQ(static_cast<int64_t>(seen.size()), (size + world - 1) / world * world);
}

INSTANTIATE_TEST_SUITE_P(SizesAndWorlds, Shards,
                         ::testing::Combine(::testing::Values(1, 7, 100, 50000),
                                            ::testing::Values(1, 2, 3, 4)));

TEST(ShardSampler, UnionOfRankBatchesIsTheSingleProcessBatch) {
  const int world = 4;
  const int64_t per_rank = 64, size = 50000;
  ShardSampler single(size, 1, 0, 9, true);
  single.set_epoch(2);
  std::vector<ShardSampler> ranks;
  for (int r = 0; r < world; ++r) {
    ranks.emplace_back(size, world, r, 9, true);
    ranks.back().set_epoch(2);
  }
  ASSERT_EQ(single.num_batches(per_rank * world), 196);
  for (int64_t b : {0, 1, 100, 195}) {
    auto expected = single.batch(b, per_rank * world);
    std::vector<int64_t> together;
    for (const auto& s : ranks) {
      ASSERT_EQ(s.num_batches(per_rank), 196);
      auto mine = s.batch(b, per_rank);
      together.insert(together.end(), mine.begin(), mine.end());
    }
    std::sort(expected.begin(), expected.end());
    std::sort(together.begin(), together.end());
    EXPECT_EQ(together, expected) << "batch " << b;
  }
}

TEST(ShardSampler, OrderDependsOnEpochAndSeed) {
  ShardSampler a(1000, 2, 1, 5, true), b(1000, 2, 1, 5, true), c(1000, 2, 1, 6, true);
  a.set_epoch(0);
  b.set_epoch(1);
  c.set_epoch(0);
  EXPECT_NE(a.indices(), b.indices());
  EXPECT_NE(a.indices(), c.indices());
  ShardSampler again(1000, 2, 1, 5, true);
  again.set_epoch(0);
  EXPECT_EQ(a.indices(), again.indices());
}

TEST(ShardSampler, LastBatchIsShorter) {
  ShardSampler s(10, 1, 0, 1, false);
  EXPECT_EQ(s.num_batches(4), 3);
  EXPECT_EQ(s.batch(2, 4), (std::vector<int64_t>{8, 9}));
}

}  // namespace
}  // namespace dtbench
