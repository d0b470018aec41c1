// The compute the cost model starts from (report/predict/model_inputs.h), held against what the
// records and traces of a committed directory say: the blocking runs' compute at the pace of
// every run's forward, and the wait for the slowest rank of an overlapping engine as its other
// traced experiments measured it; the compute a what-if starts from.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "catalogue/methods.h"
#include "common/timed_window.h"
#include "record/record.h"
#include "report/predict/model_inputs.h"
#include "report/read/results.h"
#include "report/read/select.h"
#include "report/traces/stragglers.h"
#include "report/traces/trace_facts.h"
#include "stats/stats.h"

namespace dtbench {
namespace {

// A committed directory whose bucketed runs at five bucket sizes are traced.
const std::string kModel = DTBENCH_SOURCE_DIR "/results/reference/model-netns-4-1gbit-xeon-vm";
// One whose bucketed runs (15 of 21) computed their forward faster than its blocking runs.
const std::string kBucketBest =
    DTBENCH_SOURCE_DIR "/results/reference/bucket-best-netns-4-1gbit-xeon-vm";
// One with blocking LeNet-5 runs over MPI and over Gloo.
const std::string kStudy = DTBENCH_SOURCE_DIR "/results/reference/study-netns-4-1gbit-xeon-vm";
// LeNet-5 over MPI and Gloo on 2, 4 and 8 of the emulated cluster's hosts, on a 2-core machine.
const std::string kFrag8k =
    DTBENCH_SOURCE_DIR "/results/reference/extrapolation-netns-8-100mbit-epyc-vm-frag8k";

// The method's name as a C string: a reference returned from a call given a temporary
// std::string is what GCC 14's -Wdangling-reference warns of.
const TrainRun& run_of(const SystemResults& s, const char* sync, double bucket_mb) {
  for (const TrainRun& r : s.runs) {
    const TrainConfig& c = r.record.config;
    if (r.kind == "train" && c.sync == sync && c.sync_options.bucket_mb == bucket_mb) return r;
  }
  throw std::runtime_error(std::string("no run of ") + sync);
}

TEST(ModelInputs, BlockingComputeAtThePaceOfEveryForward) {
  const Results results = load_results({kBucketBest});
  const SystemResults& s = results.systems.at(0);
  std::vector<double> blocking_forward, blocking_backward, every_forward;
  for (const TrainRun& r : s.runs) {
    const TrainConfig& c = r.record.config;
    if (r.kind != "train" || c.model != "vgg11") continue;
    if (c.sync_options.mode != SyncMode::stale) every_forward.push_back(report::phase_mean(r, 1));
    if (c.sync_options.mode == SyncMode::blocking && !is_lossy(c.sync)) {
      blocking_forward.push_back(report::phase_mean(r, 1));
      blocking_backward.push_back(report::phase_mean(r, 2));
    }
  }
  ASSERT_GE(blocking_forward.size(), 2U);
  ASSERT_GT(every_forward.size(), blocking_forward.size());
  const MeasuredCompute m = compute_of(s, "vgg11", 256, 4);
  ASSERT_TRUE(m.found) << m.source;
  const double pace = summarize(every_forward).median / summarize(blocking_forward).median;
  EXPECT_LT(pace, 1.0);  // the scaling is exercised
  EXPECT_NEAR(m.profile.forward_s, summarize(every_forward).median, 1e-12);
  EXPECT_NEAR(m.profile.backward_s, pace * summarize(blocking_backward).median, 1e-12);
  EXPECT_NE(m.source.find("at the pace of"), std::string::npos) << m.source;
  // The ready times are fractions of the scaled backward: the last one within it.
  EXPECT_LE(m.profile.ready_s.front(), m.profile.backward_s);
}

TEST(ModelInputs, OverlapWaitsAsTheOtherBucketSizesTracesSay) {
  const Results results = load_results({kModel});
  const SystemResults& s = results.systems.at(0);
  const TrainRun& at25 = run_of(s, "bucketed", 25);
  const MeasuredCompute blocking = profile_for(s, at25);
  ASSERT_TRUE(blocking.found) << blocking.source;
  // What the traces of bucketed at 1, 5, 10 and 50 MB show, read here from their events.
  std::vector<double> others;
  for (double mb : {1.0, 5.0, 10.0, 50.0}) {
    const Stragglers st = stragglers_of(trace_events(run_of(s, "bucketed", mb).trace_file()));
    ASSERT_GE(st.straggler, 0);
    others.push_back(st.over_mean_s);
  }
  const MeasuredCompute overlap = with_overlap_wait(s, at25.record.config, blocking, at25.name);
  EXPECT_NEAR(overlap.profile.straggler_s, summarize(others).median, 1e-12);
  EXPECT_NE(overlap.source.find("4 traced bucketed runs at 1, 5, 10, 50 MB"), std::string::npos)
      << overlap.source;
  // Only the wait changes.
  EXPECT_EQ(overlap.profile.backward_s, blocking.profile.backward_s);
  EXPECT_EQ(overlap.profile.ready_s, blocking.profile.ready_s);
  // Never the experiment predicted: for 50 MB the others are 1, 5, 10 and 25; a cell no
  // experiment of the directory is (a study's prediction before it measures) takes them all.
  const TrainRun& at50 = run_of(s, "bucketed", 50);
  EXPECT_NE(with_overlap_wait(s, at50.record.config, blocking, at50.name)
                .source.find("at 1, 5, 10, 25 MB"),
            std::string::npos);
  EXPECT_NE(with_overlap_wait(s, at50.record.config, blocking).source.find("5 traced bucketed"),
            std::string::npos);
}

TEST(ModelInputs, NoOverlapLeavesTheBlockingWait) {
  const Results results = load_results({kModel});
  const SystemResults& s = results.systems.at(0);
  const TrainRun& allreduce = run_of(s, "allreduce", kDefaultBucketMb);
  const MeasuredCompute blocking = profile_for(s, allreduce);
  ASSERT_TRUE(blocking.found);
  EXPECT_EQ(with_overlap_wait(s, allreduce.record.config, blocking).profile.straggler_s,
            blocking.profile.straggler_s);
}

TEST(ModelInputs, ReducerTakesTheWaitOfTheEnginesWhoseTracesShowIt) {
  const Results results = load_results({kModel});
  const SystemResults& s = results.systems.at(0);
  // c10d_ddp over Gloo waits inside backward: its own trace cannot show the wait, and the
  // bucketed engine's traced runs at all five sizes measure it.
  const TrainRun& ddp = run_of(s, "c10d_ddp", kDefaultBucketMb);
  const MeasuredCompute blocking = profile_for(s, ddp);
  ASSERT_TRUE(blocking.found) << blocking.source;
  std::vector<double> bucketed;
  for (double mb : {1.0, 5.0, 10.0, 25.0, 50.0}) {
    const Stragglers st = stragglers_of(trace_events(run_of(s, "bucketed", mb).trace_file()));
    ASSERT_GE(st.straggler, 0);
    bucketed.push_back(st.over_mean_s);
  }
  const MeasuredCompute d = with_overlap_wait(s, ddp.record.config, blocking, ddp.name);
  EXPECT_NEAR(d.profile.straggler_s, summarize(bucketed).median, 1e-12);
  EXPECT_NE(d.source.find("5 traced bucketed/mpi runs at 1, 5, 10, 25, 50 MB; c10d_ddp waits"),
            std::string::npos)
      << d.source;
  EXPECT_EQ(d.profile.backward_s, blocking.profile.backward_s);
}

// The iteration a record counts is its slowest rank's, the phases the ranks' mean: the gap
// between them is the slowest rank's excess over the ranks' mean, which the ranks' own times
// show. The profile takes it from the blocking runs over the run's backend, whose threads keep
// the ranks apart their own way.
TEST(ModelInputs, TheSlowestRanksExcessComesFromTheBlockingRunsOverItsBackend) {
  const Results results = load_results({kStudy});
  const SystemResults& s = results.systems.at(0);
  std::map<std::string, std::vector<double>> excess;
  for (const TrainRun& r : s.runs) {
    const TrainConfig& c = r.record.config;
    if (r.kind != "train" || c.model != "lenet5" || c.sync_options.mode != SyncMode::blocking ||
        is_lossy(c.sync) || c.sync == "none" || c.slow_rank >= 0) {
      continue;
    }
    const std::vector<double> total = report::timed(r);
    double phases = 0;
    for (size_t p = 0; p < kPhaseCount; ++p) phases += report::phase_mean(r, p);
    const double gap = summarize(total).mean - phases;
    // The ranks' own iteration times: the slowest's over their mean, iteration by iteration.
    double over_mean = 0;
    for (int64_t i = kTimedFirst; i <= kTimedLast; ++i) {
      double slowest = 0, sum = 0;
      for (const RankUsage& rank : r.record.ranks) {
        slowest = std::max(slowest, rank.iteration_s.at(i));
        sum += rank.iteration_s.at(i);
      }
      over_mean += (slowest - sum / r.record.ranks.size()) / (kTimedLast - kTimedFirst + 1);
    }
    EXPECT_NEAR(gap, over_mean, 2e-5) << r.name;
    EXPECT_GT(gap, 0) << r.name;
    excess[c.backend].push_back(gap);
  }
  ASSERT_GE(excess["mpi"].size(), 2U);
  ASSERT_GE(excess["gloo"].size(), 2U);
  for (const auto& [backend, gaps] : excess) {
    const MeasuredCompute m = compute_of(s, "lenet5", 64, 4, backend);
    ASSERT_TRUE(m.found) << m.source;
    EXPECT_NEAR(m.profile.slowest_excess_s, summarize(gaps).median, 1e-12) << backend;
    EXPECT_NE(m.source.find(
                  fmt::format("the median over {} blocking runs over {})", gaps.size(), backend)),
              std::string::npos)
        << m.source;
  }
  // Here Gloo's ranks drift further apart than MPI's.
  EXPECT_GT(compute_of(s, "lenet5", 64, 4, "gloo").profile.slowest_excess_s,
            compute_of(s, "lenet5", 64, 4, "mpi").profile.slowest_excess_s);
}

TEST(ModelInputs, WhereRanksLeaveCoresIdleEachBackendComputesAtItsOwnPace) {
  const Results results = load_results({kFrag8k});
  const SystemResults& s = results.systems.at(0);
  // Per rank count and backend, the forward of every run that does not overlap a stale sum; one
  // blocking run of each.
  std::map<int, std::map<std::string, std::vector<double>>> forward;
  std::map<int, std::map<std::string, const TrainRun*>> blocking;
  for (const TrainRun& r : s.runs) {
    const TrainConfig& c = r.record.config;
    if (r.kind != "train" || c.model != "lenet5" || c.sync_options.mode == SyncMode::stale) {
      continue;
    }
    const int n = static_cast<int>(c.world_size);
    forward[n][c.backend].push_back(report::phase_mean(r, 1));
    if (c.sync_options.mode == SyncMode::blocking) blocking[n][c.backend] = &r;
  }
  const auto every = [&](int n) {
    std::vector<double> all = forward[n]["mpi"];
    all.insert(all.end(), forward[n]["gloo"].begin(), forward[n]["gloo"].end());
    return summarize(all).median;
  };
  // 2 ranks on the machine's 2 cores: each backend's own runs set the pace of its runs, and
  // Gloo's ranks, which sleep through their waits, computed slower here than MPI's, which poll.
  for (const std::string backend : {"mpi", "gloo"}) {
    const std::vector<double>& own = forward[2][backend];
    ASSERT_GE(own.size(), 3U) << backend;
    ASSERT_NE(blocking[2][backend], nullptr) << backend;
    EXPECT_TRUE(waits_idle_cores(s, *blocking[2][backend]));
    const MeasuredCompute m = profile_for(s, *blocking[2][backend]);
    ASSERT_TRUE(m.found) << m.source;
    EXPECT_NEAR(m.profile.forward_s, summarize(own).median, 1e-12) << backend;
    EXPECT_NE(m.source.find(fmt::format("the {} runs' forward over {}", own.size(), backend)),
              std::string::npos)
        << m.source;
    // Not paced by its backend: every run's pace.
    EXPECT_NEAR(compute_of(s, "lenet5", 64, 2, backend).profile.forward_s, every(2), 1e-12);
  }
  EXPECT_GT(profile_for(s, *blocking[2]["gloo"]).profile.forward_s,
            1.05 * profile_for(s, *blocking[2]["mpi"]).profile.forward_s);
  // 4 ranks on those 2 cores: a waiting rank's core goes to another's compute; one pace for both.
  for (const std::string backend : {"mpi", "gloo"}) {
    ASSERT_NE(blocking[4][backend], nullptr) << backend;
    EXPECT_FALSE(waits_idle_cores(s, *blocking[4][backend]));
    const MeasuredCompute m = profile_for(s, *blocking[4][backend]);
    ASSERT_TRUE(m.found) << m.source;
    EXPECT_NEAR(m.profile.forward_s, every(4), 1e-12) << backend;
    EXPECT_EQ(m.source.find("forward over"), std::string::npos) << m.source;
  }
}

// The compute a what-if starts from: the largest blocking runs with ready times from their
// traces. The 16-host runs of the extrapolation-16 matrix are not traced (a ring's trace on 16
// ranks is megabytes), so it comes from the 8-host ones, as the 8-host runs' own predictions do.
TEST(ModelInputs, MeasuredComputeTakesTheLargestTracedBlockingRuns) {
  const Results results = load_results(
      {DTBENCH_SOURCE_DIR "/results/reference/extrapolation-16-netns-16-100mbit-epyc-vm"});
  const SystemResults& s = results.systems.at(0);
  const TrainRun* largest = nullptr;
  const TrainRun* traced = nullptr;
  for (const TrainRun& r : s.runs) {
    const TrainConfig& c = r.record.config;
    if (r.kind != "train" || c.sync_options.mode != SyncMode::blocking) continue;
    if (largest == nullptr || c.world_size > largest->record.config.world_size) largest = &r;
    if (c.world_size == 8) traced = &r;
  }
  ASSERT_NE(largest, nullptr);
  ASSERT_NE(traced, nullptr);
  EXPECT_EQ(largest->record.config.world_size, 16);
  EXPECT_FALSE(profile_for(s, *largest).found);
  const MeasuredCompute m = measured_compute(s, "lenet5");
  ASSERT_TRUE(m.found) << m.source;
  const MeasuredCompute on_8 = profile_for(s, *traced);
  ASSERT_TRUE(on_8.found) << on_8.source;
  EXPECT_EQ(m.source.rfind("compute of lenet5 (8 ranks, batch 64):", 0), 0U) << m.source;
  // 4 ranks a core: one pace for every backend (the slowest rank's excess is the backend's own).
  EXPECT_DOUBLE_EQ(m.profile.forward_s, on_8.profile.forward_s);
  EXPECT_DOUBLE_EQ(m.profile.backward_s, on_8.profile.backward_s);
  EXPECT_FALSE(measured_compute(s, "vgg11").found);
}

}  // namespace
}  // namespace dtbench
