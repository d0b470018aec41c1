// bench_collectives' seeded inputs: the table-driven fill and check agree with the closed form
// (7i + 3e) mod 17 at every element, across the table's run boundaries, at odd lengths and
// offsets, and count exactly the elements that were changed.
#include <gtest/gtest.h>

#include "collectives/collective.h"

namespace dtbench::bench {
namespace {

const int64_t kLengths[] = {0, 1, 16, 17, 18, 1087, 1088, 1089, 5000};
const int64_t kIterations[] = {-1, 0, 1, 8, 16, 17, 39, 200};
const int64_t kFirsts[] = {0, 5, 1088 * 3 + 7};

TEST(SeededInputs, ResidueIsTheClosedForm) {
  for (int64_t i : kIterations) {
    for (int64_t e = 0; e < 100; ++e) {
      const int64_t r = seed_residue(i, e);
      EXPECT_GE(r, 0);
      EXPECT_LT(r, 17);
      EXPECT_EQ((r - 7 * i - 3 * e) % 17, 0) << "i " << i << " e " << e;
    }
  }
}

TEST(SeededInputs, FillMatchesTheClosedFormEverywhere) {
  for (Seeded want : {input_of(0), input_of(3), sum_of(4), sum_of(15)}) {
    for (int64_t length : kLengths) {
      for (int64_t i : kIterations) {
        for (int64_t first : kFirsts) {
          at::Tensor t = at::full({length}, -1.0f);
          fill_seeded(t, i, first, want);
          const float* data = t.data_ptr<float>();
          int64_t differing = 0;
          for (int64_t k = 0; k < length; ++k) {
            const float closed =
                want.scale * static_cast<float>(seed_residue(i, first + k)) + want.offset;
            differing += data[k] != closed ? 1 : 0;
          }
          EXPECT_EQ(differing, 0) << "length " << length << " i " << i << " first " << first;
          EXPECT_EQ(count_mismatches(t, i, first, want), 0);
        }
      }
    }
  }
}

TEST(SeededInputs, CountsExactlyTheChangedElements) {
  at::Tensor t = at::empty({5000});
  fill_seeded(t, 39, 7, sum_of(4));
  float* data = t.data_ptr<float>();
  for (int64_t k : {0, 16, 17, 1087, 1088, 4999}) data[k] += 1;
  EXPECT_EQ(count_mismatches(t, 39, 7, sum_of(4)), 6);
  // The same values checked at another iteration or offset are wrong almost everywhere.
  EXPECT_GT(count_mismatches(t, 40, 7, sum_of(4)), 4000);
  EXPECT_GT(count_mismatches(t, 39, 8, sum_of(4)), 4000);
}

TEST(SeededInputs, RankPartsHoldEachRanksInput) {
  const int parts = 4;
  const int64_t part = 1201;
  at::Tensor t = at::empty({parts * part});
  fill_rank_parts(t, 3, parts);
  for (int p = 0; p < parts; ++p) {
    EXPECT_EQ(count_mismatches(t.narrow(0, p * part, part), 3, p * part, input_of(p)), 0);
  }
  EXPECT_EQ(count_rank_part_mismatches(t, 3, parts), 0);
  t.data_ptr<float>()[parts * part - 1] = -7;
  EXPECT_EQ(count_rank_part_mismatches(t, 3, parts), 1);
}

}  // namespace
}  // namespace dtbench::bench
