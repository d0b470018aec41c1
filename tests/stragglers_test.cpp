// Who the others wait for, from made-up traces with a known straggler.
#include "report/traces/stragglers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dtbench {
namespace {

using ::testing::HasSubstr;

nlohmann::json span(int rank, const char* cat, double ts, double dur) {
  return {{"ph", "X"}, {"pid", rank}, {"cat", cat}, {"name", cat}, {"ts", ts}, {"dur", dur}};
}

// 4 ranks, 10 iterations of 100 ms (microseconds in the trace): each computes 30 ms, then two
// operations; rank `slow` computes `late_ms` longer in every iteration but the first, where rank
// 0 is late instead.
nlohmann::json trace_of(int slow, double late_ms) {
  nlohmann::json events = nlohmann::json::array();
  for (int k = 0; k < 10; ++k) {
    const double t0 = 100e3 * k;
    for (int r = 0; r < 4; ++r) {
      const int late = k == 0 ? 0 : slow;
      const double arrive = t0 + 30e3 + (r == late ? late_ms * 1e3 : 0);
      events.push_back(span(r, "iteration", t0, 99e3));
      events.push_back(span(r, "comm", arrive, 1e3));
      events.push_back(span(r, "comm", arrive + 2e3 + 100 * r, 1e3));  // a pipeline's own skew
    }
  }
  return events;
}

TEST(Stragglers, TheLateRankIsNamedWithTheOthersWait) {
  const Stragglers s = stragglers_of(trace_of(2, 50));
  EXPECT_EQ(s.ranks, 4);
  EXPECT_EQ(s.iterations, 10);
  EXPECT_EQ(s.straggler, 2);
  EXPECT_EQ(s.last_count[2], 9);
  // 9 iterations with rank 2 50 ms late, one where it was on time: 45 ms per iteration.
  EXPECT_NEAR(s.others_wait_s, 0.045, 1e-9);
  EXPECT_THAT(stragglers_text(s), HasSubstr("rank 2 arrived last in 9 of 10 iterations"));
}

TEST(Stragglers, UnmatchedOrSingleRankTracesNameNobody) {
  nlohmann::json events = trace_of(1, 10);
  events.push_back(span(3, "comm", 5e3, 1e3));  // rank 3 has an extra operation in iteration 0
  const Stragglers s = stragglers_of(events);
  EXPECT_EQ(s.iterations, 9);  // iteration 0 left out
  EXPECT_EQ(s.straggler, 1);
  nlohmann::json one = nlohmann::json::array({span(0, "iteration", 0, 10), span(0, "comm", 1, 1)});
  EXPECT_EQ(stragglers_of(one).straggler, -1);
  EXPECT_EQ(stragglers_text(stragglers_of(one)), "");
}

TEST(Stragglers, NoRankLastInMostIterationsIsSaid) {
  nlohmann::json events = nlohmann::json::array();
  for (int k = 0; k < 4; ++k) {
    for (int r = 0; r < 2; ++r) {
      events.push_back(span(r, "iteration", 100e3 * k, 99e3));
      events.push_back(span(r, "comm", 100e3 * k + 10e3 + (r == k % 2 ? 1e3 : 0), 1e3));
    }
  }
  EXPECT_THAT(stragglers_text(stragglers_of(events)), HasSubstr("no rank arrived last in most"));
}

}  // namespace
}  // namespace dtbench
