// Who the others wait for, from made-up traces of known compute: the rank that computes longest,
// the others' wait for it, and the longest compute over the ranks' mean (the model's wait).
#include "report/traces/stragglers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

namespace dtbench {
namespace {

using ::testing::HasSubstr;

nlohmann::json span(int rank, const char* name, double begin_us, double duration_us) {
  return {{"ph", "X"}, {"pid", rank}, {"name", name}, {"ts", begin_us}, {"dur", duration_us}};
}

// Rank r's iteration k starts at k seconds; its data, forward and backward take compute[r][k]
// seconds in all (0.1, a third, the rest), then its synchronisation fills the iteration.
nlohmann::json trace_of(const std::vector<std::vector<double>>& compute) {
  nlohmann::json events = nlohmann::json::array();
  for (size_t r = 0; r < compute.size(); ++r) {
    for (size_t k = 0; k < compute[r].size(); ++k) {
      const double t0 = 1e6 * static_cast<double>(k), c = 1e6 * compute[r][k];
      const int rank = static_cast<int>(r);
      events.push_back(span(rank, "iteration", t0, 0.9e6));
      events.push_back(span(rank, "data", t0, 0.1 * c));
      events.push_back(span(rank, "forward", t0 + 0.1 * c, c / 3));
      events.push_back(span(rank, "backward", t0 + 0.1 * c + c / 3, c - 0.1 * c - c / 3));
      events.push_back(span(rank, "sync", t0 + c, 0.9e6 - c));  // not compute
    }
  }
  return events;
}

// 4 ranks, 10 iterations of 0.3 s of compute; rank `slow` computes `late` s longer in every
// iteration but the first, where rank 0 does instead.
nlohmann::json late_rank(int slow, double late) {
  std::vector<std::vector<double>> compute(4, std::vector<double>(10, 0.3));
  for (size_t k = 0; k < 10; ++k) compute[k == 0 ? 0 : static_cast<size_t>(slow)][k] += late;
  return trace_of(compute);
}

TEST(Stragglers, TheLongestRankIsNamedWithTheOthersWait) {
  const Stragglers s = stragglers_of(late_rank(2, 0.05));
  EXPECT_EQ(s.ranks, 4);
  EXPECT_EQ(s.iterations, 10);
  EXPECT_EQ(s.straggler, 2);
  EXPECT_EQ(s.longest_count[2], 9);
  // 9 iterations with rank 2 50 ms longer, one where it was not: 45 ms per iteration.
  EXPECT_NEAR(s.others_wait_s, 0.045, 1e-9);
  // Every iteration's longest is 50 ms over 0.3 s, 37.5 ms over the mean of the four.
  EXPECT_NEAR(s.over_mean_s, 0.0375, 1e-9);
  EXPECT_THAT(stragglers_text(s), HasSubstr("rank 2 computed longest in 9 of 10 iterations"));
}

TEST(Stragglers, TheLongestComputeAgainstTheRanksMean) {
  // Iteration 0: rank 1 takes 0.6 s where the others take 0.4: mean 0.45, over it 0.15.
  // Iteration 1: rank 3 takes 0.5 against 0.3: mean 0.35, over it 0.15.
  const Stragglers s = stragglers_of(trace_of({{0.4, 0.3}, {0.6, 0.3}, {0.4, 0.3}, {0.4, 0.5}}));
  EXPECT_NEAR(s.over_mean_s, 0.15, 1e-9);
  EXPECT_THAT(stragglers_text(s), HasSubstr("no rank computed longest in most"));
}

TEST(Stragglers, RanksInStepWaitForNobody) {
  const Stragglers s = stragglers_of(trace_of({{0.4, 0.5}, {0.4, 0.5}}));
  EXPECT_NEAR(s.over_mean_s, 0.0, 1e-9);
  EXPECT_NEAR(s.others_wait_s, 0.0, 1e-9);
}

TEST(Stragglers, OneRankOrNoTraceNameNobody) {
  for (const nlohmann::json& events : {trace_of({{0.4, 0.5}}), nlohmann::json::array()}) {
    const Stragglers s = stragglers_of(events);
    EXPECT_EQ(s.straggler, -1);
    EXPECT_EQ(s.over_mean_s, 0.0);
    EXPECT_EQ(stragglers_text(s), "");
  }
}

}  // namespace
}  // namespace dtbench
