// The report's diagnosis of one system, on a hand-made one: a 4-rank run whose start-up probe
// found one host's links slow names that host; the rank table has the run; the parts nothing
// measured say so.
#include "report/predict/diagnosis.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "common/units.h"

namespace dtbench {
namespace {

using ::testing::HasSubstr;

TrainRun four_rank_run(double slow_pair_s) {
  TrainRun r;
  r.group = "sync_methods";
  r.name = "backend=mpi,ranks=4,sync=allreduce";
  r.kind = "train";
  r.ranks = 4;
  r.params = {{"sync", "allreduce"}, {"backend", "mpi"}, {"ranks", 4}};
  r.record.config.sync = "allreduce";
  r.record.config.backend = "mpi";
  r.record.config.world_size = 4;
  for (int rank = 0; rank < 4; ++rank) {
    RankUsage u;
    u.rank = rank;
    u.host = "h" + std::to_string(rank);
    // Rank 3 is 10% slower; 41 iterations, the timed window 1..39.
    u.iteration_s.assign(41, rank == 3 ? 0.11 : 0.10);
    r.record.ranks.push_back(u);
  }
  for (int k = 0; k < 4; ++k) {
    const int a = k, b = (k + 1) % 4;
    const bool touches_h2 = a == 2 || b == 2;
    r.record.links.push_back(
        {std::min(a, b), std::max(a, b), kMiB, touches_h2 ? slow_pair_s : 0.02});
  }
  r.record.iterations.total_s.assign(41, 0.11);
  return r;
}

TEST(Diagnosis, NamesTheHostTheStartUpProbeFoundSlow) {
  SystemResults s;
  s.label = "test";
  s.runs.push_back(four_rank_run(0.2));
  const Diagnosis d = diagnose(s);
  ASSERT_EQ(d.ranks.rows.size(), 1u);
  EXPECT_EQ(d.ranks.text(0, "slowest rank"), "3 (h3)");
  EXPECT_NEAR(d.ranks.number(0, "spread %"), 10.0, 1e-6);
  ASSERT_EQ(d.links.size(), 1u);
  EXPECT_THAT(d.links[0], HasSubstr("h2 is slow in 1 of 1 probed runs"));
  EXPECT_THAT(d.links[0], HasSubstr("allreduce (sync_methods)"));
  const std::string text = diagnosis_markdown(d);
  EXPECT_THAT(text, HasSubstr("**Links between hosts.** h2 is slow"));
  EXPECT_THAT(text, HasSubstr("**Stragglers.** No traced run"));
  EXPECT_THAT(text, HasSubstr("**The model.** No experiment could be predicted"));
}

TEST(Diagnosis, EvenLinksNameNoHost) {
  SystemResults s;
  s.label = "test";
  s.runs.push_back(four_rank_run(0.021));
  const Diagnosis d = diagnose(s);
  ASSERT_EQ(d.links.size(), 1u);
  EXPECT_THAT(d.links[0], HasSubstr("No host stands out in 1 of 1 probed runs"));
}

}  // namespace
}  // namespace dtbench
