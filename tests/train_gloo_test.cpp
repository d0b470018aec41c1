// The distributed trainer with Gloo ranks as threads on small generated MNIST: every strategy
// reproduces the single-process losses (the course's "same loss as in Task 2a"), stale mode
// trains on a different trajectory, and replica checks pass or catch a corrupted replica.
#include <gtest/gtest.h>

#include <numeric>

#include "comm/self_communicator.h"
#include "common/error.h"
#include "common/units.h"
#include "fixtures.h"
#include "plan/bucket_plan.h"
#include "stats/rank_stats.h"
#include "thread_ranks.h"
#include "train/timeline.h"
#include "train/trainer.h"
#include "train_checks.h"

namespace dtbench::testing {
namespace {

class GlooTraining : public ::testing::Test {
 protected:
  void SetUp() override { write_mnist(dir_.path(), 320, 40, /*gzip=*/false); }

  // Rank 0's losses of a run on n thread ranks.
  std::vector<double> losses_on(int n, const std::string& sync, const std::string& mode,
                                int iterations) {
    std::vector<double> losses;
    run_gloo_ranks(n, [&](Communicator& comm) {
      auto mine = losses_with(comm, tiny_lenet_config(dir_.path()), sync, mode, iterations);
      if (comm.rank() == 0) losses = mine;
    });
    return losses;
  }

  TempDir dir_;
};

TEST_F(GlooTraining, EveryStrategyMatchesTheSingleProcessLosses) {
  auto self = make_self_communicator();
  auto single = losses_with(*self, tiny_lenet_config(dir_.path()), "none", "", 6);
  std::vector<double> first;
  for (const auto& name : synchronising_strategies()) {
    auto losses = losses_on(4, name, "", 6);
    EXPECT_LE(max_difference(losses, single), 1e-3) << name;
    if (first.empty()) first = losses;
    EXPECT_LE(max_difference(losses, first), 1e-4) << name;
  }
}

TEST_F(GlooTraining, StaleModeTakesAnotherPathButTrains) {
  auto blocking = losses_on(2, "allreduce", "blocking", 30);
  auto stale = losses_on(2, "allreduce", "stale", 30);
  EXPECT_DOUBLE_EQ(stale[0], blocking[0]);  // the same model before any step
  EXPECT_GT(max_difference(stale, blocking), 1e-3);
  double early = std::accumulate(stale.begin(), stale.begin() + 5, 0.0);
  double late = std::accumulate(stale.end() - 5, stale.end(), 0.0);
  EXPECT_LT(late, 0.9 * early);  // delayed gradients converge more slowly, but converge
}

TEST_F(GlooTraining, ReplicasStayIdenticalThroughAnEpoch) {
  run_gloo_ranks(3, [&](Communicator& comm) {
    TrainConfig config = tiny_lenet_config(dir_.path());
    config.global_batch = 30;
    config.sync = "ring_allreduce";
    std::FILE* quiet = std::tmpfile();
    RunRecord r = Trainer(config, load_train_data(config), comm, quiet).run();  // checks at the end
    std::fclose(quiet);
    EXPECT_EQ(r.iterations.size(), 11u);  // 320 samples padded to 321, 107 per rank, batches of 10
    ASSERT_EQ(r.ranks.size(), 3u);
    for (const auto& rank : r.ranks) EXPECT_GT(rank.payload_sent_bytes, 0);
    EXPECT_EQ(r.ranks[2].rank, 2);
  });
}

TEST_F(GlooTraining, CorruptedReplicaIsDetected) {
  TrainConfig config = tiny_lenet_config(dir_.path());
  config.sync = "allreduce";
  config.max_iters = 3;
  config.fault = "corrupt:1";
  try {
    run_gloo_ranks(2, [&](Communicator& comm) {
      std::FILE* quiet = std::tmpfile();
      Trainer(config, load_train_data(config), comm, quiet).run();
      std::fclose(quiet);
    });
    FAIL() << "no error";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("replicas diverged after epoch 1"), std::string::npos)
        << e.what();
  }
}

TEST_F(GlooTraining, SlowRankSetsThePace) {
  run_gloo_ranks(2, [&](Communicator& comm) {
    TrainConfig config = tiny_lenet_config(dir_.path());
    config.sync = "allreduce";
    config.max_iters = 4;
    config.slow_rank = 1;
    config.slow_ms = 40;
    std::FILE* quiet = std::tmpfile();
    RunRecord r = Trainer(config, load_train_data(config), comm, quiet).run();
    std::fclose(quiet);
    // Busy work is a lower bound whatever the machine: every iteration of the world (the slowest
    // rank's) takes at least 40 ms. The fast rank waits for the slow one at the allreduce, but
    // its clock may start a little after the slow rank's (the ranks leave the previous step's
    // control allreduce apart): 40 ms less that skew (once seen at 39.3 ms in CI).
    for (double t : r.iterations.total_s) EXPECT_GE(t, 0.040);
    for (double t : r.ranks[0].iteration_s) EXPECT_GE(t, 0.030);
    for (double t : r.iterations.phase_s[static_cast<size_t>(Phase::forward)]) {
      EXPECT_GE(t, 0.020);  // the mean over 2 ranks of the forward phase, one of them slowed
    }
    // Each rank's own phases name the slowed one: its compute is longer by the busy work.
    ASSERT_EQ(r.ranks.size(), 2u);
    EXPECT_EQ(r.ranks[1].phase_s[static_cast<size_t>(Phase::forward)].size(), 4u);
    EXPECT_EQ(rank_spread(r).behind, 1);
  });
}

// bucketed re-cuts its buckets from a probe of the link and the first iteration's gradient
// times; the record keeps both, and they alone give the buckets it ran.
TEST_F(GlooTraining, BucketedRecordsThePlanItsBucketsCameFrom) {
  run_gloo_ranks(2, [&](Communicator& comm) {
    TrainConfig config = tiny_lenet_config(dir_.path());
    config.sync = "bucketed";
    config.sync_options.mode = SyncMode::overlap;
    config.sync_options.bucket_mb = 0.05;  // under LeNet-5's 0.25 MB, so that the cap cuts
    config.max_iters = 3;
    std::FILE* quiet = std::tmpfile();
    Trainer trainer(config, load_train_data(config), comm, quiet);
    RunRecord r = trainer.run();
    std::fclose(quiet);
    std::vector<int64_t> bytes;  // in backward's order, as the plans take them
    std::vector<double> ready;
    const auto params = trainer.model()->parameters();
    ASSERT_EQ(r.plan_inputs.ready_s.size(), params.size());
    for (size_t i = params.size(); i-- > 0;) {
      bytes.push_back(params[i].nbytes());
      ready.push_back(r.plan_inputs.ready_s[i]);
      EXPECT_GE(r.plan_inputs.ready_s[i], 0.0);  // every gradient of LeNet-5 arrives
    }
    EXPECT_GT(r.plan_inputs.latency_s, 0.0);
    // No fit (the larger probe no slower than the smaller): the first cut stays.
    const int64_t cap = config.sync_options.bucket_bytes();
    const BucketPlan plan =
        r.plan_inputs.bytes_per_s > 0
            ? plan_timed_buckets(bytes, ready, {r.plan_inputs.latency_s, r.plan_inputs.bytes_per_s},
                                 cap)
            : plan_buckets(bytes, cap, std::min(cap, kFirstBucketBytes));
    EXPECT_EQ(r.bucket_bytes, bucket_sizes(plan, bytes));
    EXPECT_GT(plan.size(), 1u);
  });
}

// Gloo's allreduce of a float or a few skips steps a bucket pays for, so the latency probe moves
// kLatencyProbeElementsPerRank floats a rank on each of its four operations (a warm-up and three
// timed), and the rate probe at least twice that.
TEST_F(GlooTraining, TheLatencyProbeCarriesFloatsForEveryRank) {
  constexpr int kRanks = 4;
  run_gloo_ranks(kRanks, [&](Communicator& comm) {
    const Traffic before = comm.traffic();
    Timeline timeline;
    measure_allreduce_cost(comm, /*bytes=*/0, timeline);
    const int64_t probe_bytes = kLatencyProbeElementsPerRank * kRanks * kFloatBytes;
    EXPECT_GE(comm.traffic().sent_bytes - before.sent_bytes, 4 * probe_bytes + 4 * 2 * probe_bytes);
    EXPECT_GT(timeline.latency_s, 0.0);
  });
}

TEST_F(GlooTraining, UnknownModeForAStrategyIsAUserError) {
  TrainConfig config = tiny_lenet_config(dir_.path());
  config.sync = "bucketed";
  config.sync_options.mode = SyncMode::stale;
  auto self = make_self_communicator();
  EXPECT_THROW(Trainer(config, load_train_data(config), *self), UserError);
}

}  // namespace
}  // namespace dtbench::testing
