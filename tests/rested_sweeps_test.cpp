// Sweeps made after a rest, held against the same operations between barriers and chained: per
// backend and ranks, each collective at the largest of the models' own sizes swept both ways,
// the means over the repetitions.
#include "report/predict/rested_sweeps.h"

#include <gtest/gtest.h>

namespace dtbench {
namespace {

CollectiveRun swept(const std::string& op, int ranks, int64_t bytes, double time_s,
                    double chained_s, double rest_s, const std::string& model_case = "lenet5") {
  CollectiveRun c;
  c.op = op;
  c.backend = "mpi";
  c.ranks = ranks;
  c.bytes = bytes;
  c.model_case = model_case;
  c.time_s = time_s;
  c.chained_s = chained_s;
  c.rest_s = rest_s;
  return c;
}

TEST(RestedSweeps, EachCollectivesLargestModelSizeAgainstItsOtherTimes) {
  SystemResults s;
  s.collectives = {swept("allreduce", 2, 192000, 0.0210, 0.0270, 0),
                   swept("allreduce", 2, 192000, 0.0220, 0.0268, 0),
                   swept("allreduce", 2, 40320, 0.0033, 0.0034, 0),
                   swept("allreduce", 2, 262144, 0.0300, 0.0380, 0, ""),
                   swept("ring_reduce", 2, 192000, 0.0272, 0.0272, 0)};
  s.rested = {swept("allreduce", 2, 192000, 0.0145, 0.0230, 0.003),
              swept("allreduce", 2, 192000, 0.0147, 0.0210, 0.003),
              swept("allreduce", 2, 40320, 0.0008, 0.0034, 0.003),
              swept("allreduce", 2, 262144, 0.0200, 0.0380, 0.003, ""),  // not a model's size
              swept("ring_reduce", 2, 40320, 0.0017, 0.0034, 0.003),     // not swept otherwise
              swept("allreduce", 4, 192000, 0.0270, 0.0370, 0.003)};     // not swept otherwise
  const std::vector<RestedSweeps> r = rested_sweeps(s);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].backend, "mpi");
  EXPECT_EQ(r[0].ranks, 2);
  EXPECT_DOUBLE_EQ(r[0].rest_s, 0.003);
  ASSERT_EQ(r[0].sizes.size(), 1u);
  const RestedSize& z = r[0].sizes[0];
  EXPECT_EQ(z.op, "allreduce");
  EXPECT_EQ(z.bytes, 192000);
  EXPECT_DOUBLE_EQ(z.rested_s, 0.0146);
  EXPECT_DOUBLE_EQ(z.between_s, 0.0215);
  EXPECT_DOUBLE_EQ(z.chained_s, 0.0269);
  EXPECT_EQ(rested_sweeps_text(r[0]),
            "after 3 ms of rest, mpi on 2 ranks: allreduce at 192000 B (lenet5) 14.60 ms (21.50 "
            "between barriers, 26.90 chained)");
  EXPECT_TRUE(rested_sweeps(SystemResults{}).empty());
}

TEST(RestedSweeps, WhatARestSavedByTheSize) {
  SystemResults s;
  const auto gloo = [](CollectiveRun c) {
    c.backend = "gloo";
    return c;
  };
  // Chained less after the rest, the mean over the repetitions: 4 KiB lost 1.3 ms (read as none),
  // 64 KiB saved 1.9 ms, 256 KiB 0.2 ms; other ops, backends and ranks are not read.
  s.rested = {gloo(swept("allreduce", 2, 4096, 0.0020, 0.0007, 0.003, "")),
              gloo(swept("allreduce", 2, 65536, 0.0037, 0.0056, 0.003, "")),
              gloo(swept("allreduce", 2, 262144, 0.0229, 0.0233, 0.003, "")),
              gloo(swept("allreduce", 2, 262144, 0.0231, 0.0231, 0.003, "")),
              gloo(swept("broadcast", 2, 65536, 0.0010, 0.0050, 0.003, "")),
              gloo(swept("allreduce", 4, 65536, 0.0010, 0.0050, 0.003, "")),
              swept("allreduce", 2, 65536, 0.0010, 0.0050, 0.003, "")};
  const RestSaving r = rest_saving(s, "gloo", 2);
  ASSERT_TRUE(r.found());
  EXPECT_DOUBLE_EQ(r.rest_s, 0.003);
  ASSERT_EQ(r.saving.bytes, (std::vector<double>{4096, 65536, 262144}));
  EXPECT_DOUBLE_EQ(r.saved_s(4096), 0);
  EXPECT_NEAR(r.saved_s(65536), 0.0019, 1e-12);
  EXPECT_NEAR(r.saved_s(262144), 0.0002, 1e-12);
  // Between two sizes, on the line between them; past the largest, held at it.
  EXPECT_NEAR(r.saved_s((65536 + 262144) / 2.0), (0.0019 + 0.0002) / 2, 1e-12);
  EXPECT_NEAR(r.saved_s(4e6), 0.0002, 1e-12);
  EXPECT_FALSE(rest_saving(s, "gloo", 8).found());
  EXPECT_EQ(rest_saving(s, "gloo", 8).saved_s(65536), 0);
}

}  // namespace
}  // namespace dtbench
