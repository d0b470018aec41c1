// The share of communication hidden behind compute, from a made-up trace whose intervals give
// the answer exactly.
#include "report/traces/overlap.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dtbench {
namespace {

nlohmann::json span(int rank, const char* cat, const char* name, double ts, double dur) {
  return {{"ph", "X"}, {"pid", rank}, {"cat", cat}, {"name", name}, {"ts", ts}, {"dur", dur}};
}
nlohmann::json edge(int rank, const char* ph, int64_t id, double ts) {
  return {{"ph", ph}, {"pid", rank}, {"cat", "comm"}, {"name", "iallreduce"},
          {"ts", ts}, {"id", id}};
}

// One rank, one iteration of 100 us: forward 0-30, backward 30-70, sync 70-90, optimizer
// 90-100; a bucket in flight 40-80 (30 of its 40 us inside backward) and a blocking operation
// 85-88 (inside sync): 43 us of communication, 30 hidden, 13 exposed.
nlohmann::json one_rank(int rank, double offset) {
  return {span(rank, "iteration", "iteration", offset, 100),
          span(rank, "phase", "forward", offset, 30),
          span(rank, "phase", "backward", offset + 30, 40),
          span(rank, "phase", "sync", offset + 70, 20),
          span(rank, "phase", "optimizer", offset + 90, 10),
          edge(rank, "b", 7, offset + 40),
          edge(rank, "e", 7, offset + 80),
          span(rank, "comm", "allreduce", offset + 85, 3)};
}

TEST(Overlap, HiddenIsTheCommunicationInsideCompute) {
  const OverlapShare o = overlap_of(one_rank(0, 0));
  EXPECT_EQ(o.iterations, 1);
  EXPECT_NEAR(o.comm_s, 43e-6, 1e-12);
  EXPECT_NEAR(o.hidden_s, 30e-6, 1e-12);
  EXPECT_NEAR(o.exposed(), 13e-6, 1e-12);
  EXPECT_NEAR(o.hidden_share(), 30.0 / 43.0, 1e-12);
}

TEST(Overlap, AveragedOverRanksAndIterations) {
  nlohmann::json events = one_rank(0, 0);
  for (const auto& e : one_rank(0, 1000)) events.push_back(e);
  // Rank 1: a blocking run, every operation inside sync: nothing hidden.
  events.push_back(span(1, "iteration", "iteration", 0, 100));
  events.push_back(span(1, "phase", "backward", 0, 70));
  events.push_back(span(1, "phase", "sync", 70, 30));
  events.push_back(span(1, "comm", "allreduce", 70, 29));
  const OverlapShare o = overlap_of(events);
  EXPECT_EQ(o.iterations, 3);
  EXPECT_NEAR(o.comm_s, (43e-6 * 2 + 29e-6) / 3, 1e-12);
  EXPECT_NEAR(o.hidden_s, 60e-6 / 3, 1e-12);
  EXPECT_EQ(overlap_of(nlohmann::json::array()).comm_s, 0);
}

// The DDP engine waits for its buckets inside backward: backward 30-70 computes only until its
// last gradient arrives (at 55); the bucket in flight 40-68 is hidden 40-55 only (15 of 28 us).
TEST(Overlap, TheWaitThatEndsBackwardIsNotCompute) {
  nlohmann::json events = {span(0, "iteration", "iteration", 0, 100),
                           span(0, "phase", "forward", 0, 30),
                           span(0, "phase", "backward", 30, 40),
                           span(0, "phase", "optimizer", 70, 30),
                           edge(0, "b", 1, 40),
                           edge(0, "e", 1, 68)};
  for (double at : {35.0, 45.0, 55.0}) {
    events.push_back(
        {{"ph", "i"}, {"pid", 0}, {"cat", "backward"}, {"name", "gradient ready"}, {"ts", at}});
  }
  const OverlapShare o = overlap_of(events);
  EXPECT_NEAR(o.comm_s, 28e-6, 1e-12);
  EXPECT_NEAR(o.hidden_s, 15e-6, 1e-12);
}

}  // namespace
}  // namespace dtbench
