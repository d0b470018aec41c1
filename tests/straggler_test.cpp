// The wait for the slowest rank as dtbench predict reads it from a trace: per iteration, the
// slowest rank's compute (data + forward + backward) minus the ranks' mean, averaged over the
// iterations.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "report/traces/trace_facts.h"

namespace dtbench {
namespace {

nlohmann::json span(int rank, const char* name, double begin_us, double duration_us) {
  return {{"ph", "X"}, {"pid", rank}, {"name", name}, {"ts", begin_us}, {"dur", duration_us}};
}

// Rank r's iteration k starts at k seconds; its data, forward and backward take compute[r][k]
// seconds in all (0.1, a third, the rest), then the iteration's other spans follow.
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

TEST(Straggler, TheSlowestRankAgainstTheRanksMean) {
  // Iteration 0: rank 1 takes 0.6 s where the others take 0.4: mean 0.45, lag 0.15.
  // Iteration 1: rank 3 takes 0.5 against 0.3: mean 0.35, lag 0.15. Rank 0 is never the slowest.
  const nlohmann::json events = trace_of({{0.4, 0.3}, {0.6, 0.3}, {0.4, 0.3}, {0.4, 0.5}});
  EXPECT_NEAR(mean_straggler_s(events), 0.15, 1e-9);
}

TEST(Straggler, RanksInStepWaitForNobody) {
  EXPECT_NEAR(mean_straggler_s(trace_of({{0.4, 0.5}, {0.4, 0.5}})), 0.0, 1e-9);
}

TEST(Straggler, OneRankOrNoTraceIsNoWait) {
  EXPECT_EQ(mean_straggler_s(trace_of({{0.4, 0.5}})), 0.0);
  EXPECT_EQ(mean_straggler_s(nlohmann::json::array()), 0.0);
}

}  // namespace
}  // namespace dtbench
