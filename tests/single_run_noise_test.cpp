// One run is one draw: a run measured once is told apart from another only when they are further
// apart than runs of one configuration fell in the same results. Figures that rank single runs
// (modes, bucket sizes) say "within the noise" otherwise, and say what they judged by; a
// collective swept once has no spread, and figure 3 does not rank it as if it had.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "report/document/figures.h"
#include "report/read/select.h"

namespace dtbench {
namespace {

using report::Repeated;
using report::repeated_time;
using report::run_to_run_spread;
using report::stands_out;
using report::timing_key;
using ::testing::HasSubstr;
using ::testing::Not;

// A run of LeNet-5 over MPI whose iterations each took `seconds` (iteration 0 slower: warm-up).
TrainRun run(const std::string& group, const std::string& name, int repeat, double seconds,
             SyncMode mode = SyncMode::blocking, int epochs = 1) {
  TrainRun r;
  r.group = group;
  r.name = name;
  r.kind = "train";
  r.repeat = repeat;
  r.ranks = 4;
  TrainConfig& c = r.record.config;
  c.model = "lenet5";
  c.world_size = 4;
  c.sync = "allreduce";
  c.backend = "mpi";
  c.epochs = epochs;
  c.out = "/results/" + name + "/rep-" + std::to_string(repeat) + "/result.json";
  c.sync_options.mode = mode;
  r.record.ranks.resize(4);
  for (int i = 0; i < 40; ++i) {
    IterationTimes t;
    t.total_s = i == 0 ? 10 * seconds : seconds;
    r.record.iterations.add(1, i + 1, 1.0, t);
  }
  return r;
}

// The methods' blocking allreduce measured in 3 rounds, 0.0050 to 0.0060 s (20% apart), and the
// accuracy phase's modes once each: blocking 0.0066 s, overlap 0.0058 s (13.8% apart).
SystemResults modes_measured_once() {
  SystemResults s;
  const double rounds[] = {0.0050, 0.0060, 0.0055};
  for (int k = 0; k < 3; ++k)
    s.runs.push_back(run("methods", "methods/allreduce", k + 1, rounds[k]));
  s.runs.push_back(run("modes", "modes/blocking", 1, 0.0066, SyncMode::blocking, 1));
  s.runs.push_back(run("modes", "modes/overlap", 1, 0.0058, SyncMode::overlap, 1));
  return s;
}

TEST(SingleRunNoise, RunsOfOneConfigurationSetHowFarApartTwoSingleRunsMustBe) {
  const SystemResults s = modes_measured_once();
  // Blocking allreduce ran 4 times (3 rounds and the modes' once: eval and epochs left out),
  // 0.0050 to 0.0066 s; overlap once, alone in its configuration.
  EXPECT_NEAR(run_to_run_spread(s, s.runs[4]), 0.0066 / 0.0050 - 1, 1e-9);
  EXPECT_EQ(timing_key(s.runs[0]), timing_key(s.runs[3]));
  EXPECT_NE(timing_key(s.runs[3]), timing_key(s.runs[4]));
  // Over Gloo nothing ran twice: no spread, the run's own interval only.
  SystemResults gloo = s;
  for (auto& r : gloo.runs) r.record.config.backend = "gloo";
  gloo.runs.push_back(run("methods", "methods/allreduce", 1, 0.0050));
  gloo.runs.back().record.config.backend = "mpi";
  EXPECT_EQ(run_to_run_spread(gloo, gloo.runs.back()), 0);
}

TEST(SingleRunNoise, ASingleRunsIntervalIsWidenedHalfOnEachSide) {
  const SystemResults s = modes_measured_once();
  const Repeated once = repeated_time(s, s.runs[3]);
  ASSERT_EQ(once.reps, 1);
  EXPECT_NEAR(once.run_spread, 0.32, 1e-9);
  EXPECT_NEAR(once.low_s, 0.0066 / std::sqrt(1.32), 1e-12);
  EXPECT_NEAR(once.high_s, 0.0066 * std::sqrt(1.32), 1e-12);
  // Two single runs overlap exactly when they are no further apart than the spread.
  const Repeated other = repeated_time(s, s.runs[4]);
  EXPECT_FALSE(stands_out(once, other));
  // Repetitions keep their own range.
  const Repeated rounds = repeated_time(s, s.runs[0]);
  EXPECT_EQ(rounds.reps, 3);
  EXPECT_EQ(rounds.run_spread, 0);
  EXPECT_NEAR(rounds.low_s, 0.0050, 1e-12);
  EXPECT_NEAR(rounds.high_s, 0.0060, 1e-12);
}

const FigureSpec& figure(const std::string& id) {
  for (const auto& f : figure_registry()) {
    if (f.id == id) return f;
  }
  throw std::logic_error("no figure " + id);
}

TEST(SingleRunNoise, ModesApartByLessThanTheSpreadAreNotRanked) {
  SystemResults s = modes_measured_once();
  const FigureData f = figure("fig10_modes").build(s, {s});
  ASSERT_FALSE(f.sentences.empty());
  EXPECT_THAT(f.sentences[0], HasSubstr("With allreduce, the modes ranged from 0.0058 s (overlap) "
                                        "to 0.0066 s (blocking)"));
  EXPECT_THAT(f.sentences[0], HasSubstr("widened to the 32.0% that runs of one configuration fell "
                                        "apart here: no ranking of them stands out of the noise"));
  EXPECT_THAT(f.sentences[0], Not(HasSubstr("was the fastest")));
  // With the rounds 1% apart, 13.8% stands out.
  s.runs[0].record.iterations.total_s.assign(40, 0.0065);
  s.runs[1].record.iterations.total_s.assign(40, 0.00656);
  s.runs[2].record.iterations.total_s.assign(40, 0.0066);
  EXPECT_THAT(figure("fig10_modes").build(s, {s}).sentences[0],
              HasSubstr("With allreduce, overlap was the fastest mode (0.0058 s per iteration) and "
                        "blocking the slowest (0.0066 s)"));
}

TEST(SingleRunNoise, OneBucketSizeIsNotCalledTheFastest) {
  SystemResults s;
  s.runs.push_back(run("bucket_sweep", "bucket_sweep/50", 1, 1.3));
  s.runs.back().record.config.sync = "bucketed";
  s.runs.back().record.config.sync_options.bucket_mb = 50;
  const FigureData f = figure("fig06_bucket_sweep").build(s, {s});
  ASSERT_FALSE(f.sentences.empty());
  EXPECT_THAT(f.sentences[0],
              HasSubstr("Over mpi, only 50 MB ran (1.3 s per iteration): nothing to rank it "
                        "against."));
}

// The study runs the default 25 MB among the methods and the other sizes in the bucket sweep:
// the figure holds both, and the methods' other runs and other workloads stay out.
TEST(SingleRunNoise, TheMethodsBucketedRunJoinsTheBucketSweep) {
  SystemResults s;
  const auto bucketed = [&](const std::string& group, double mb, double seconds) {
    s.runs.push_back(run(group, group + "/" + std::to_string(static_cast<int>(mb)), 1, seconds));
    s.runs.back().record.config.sync = "bucketed";
    s.runs.back().record.config.sync_options.mode = SyncMode::overlap;
    s.runs.back().record.config.sync_options.bucket_mb = mb;
  };
  bucketed("bucket_sweep", 50, 1.3);
  bucketed("sync_methods", 25, 1.1);
  s.runs.push_back(run("sync_methods", "sync_methods/allreduce", 1, 1.0));
  bucketed("sync_methods", 10, 0.9);
  s.runs.back().record.config.global_batch = 128;  // another workload
  const FigureData f = figure("fig06_bucket_sweep").build(s, {s});
  ASSERT_EQ(f.table.rows.size(), 2u);
  EXPECT_EQ(f.table.number(0, "bucket_MB"), 25);
  EXPECT_EQ(f.table.number(1, "bucket_MB"), 50);
  EXPECT_THAT(f.caption, HasSubstr("(25 MB: the methods' bucketed run)"));
  ASSERT_FALSE(f.sentences.empty());
  EXPECT_THAT(f.sentences[0], HasSubstr("Over mpi, 25 MB was the fastest bucket size (1.1 s per "
                                        "iteration) and 50 MB the slowest (1.3 s)"));
  // Where the sweep ran the size itself, the methods' run does not join it twice.
  bucketed("bucket_sweep", 25, 1.2);
  const FigureData swept = figure("fig06_bucket_sweep").build(s, {s});
  EXPECT_EQ(swept.table.rows.size(), 2u);
  EXPECT_THAT(swept.caption, Not(HasSubstr("the methods' bucketed run")));
}

CollectiveRun sweep(const std::string& op, double busbw) {
  CollectiveRun c;
  c.op = op;
  c.backend = "mpi";
  c.ranks = 4;
  c.bytes = 4 << 20;
  c.busbw = busbw;
  c.time_s = 1e-3;
  return c;
}

TEST(SingleRunNoise, ACollectiveSweptOnceIsNotRankedAsIfItHadASpread) {
  SystemResults s;
  s.collectives = {sweep("broadcast", 3.4e9), sweep("allgather", 2.7e9)};
  auto highest = [&] { return figure("fig03_collectives").build(s, {s}).sentences.at(0); };
  EXPECT_EQ(highest(),
            "At 4 MiB the highest bus bandwidth was broadcast's over mpi: 3.4 GB/s, then "
            "allgather's over mpi (2.7 GB/s); one sweep of each: no spread to tell them apart by.");
  // Swept again: the ranges 3.3-3.4 and 2.7-2.8 do not overlap.
  s.collectives.push_back(sweep("broadcast", 3.3e9));
  s.collectives.push_back(sweep("allgather", 2.8e9));
  EXPECT_THAT(highest(), HasSubstr("above allgather's over mpi (2.75 GB/s), out of the noise (its "
                                   "slowest of 2 sweeps above the other's fastest of 2)"));
  // A third allgather sweep above broadcast's slowest: within the noise.
  s.collectives.push_back(sweep("allgather", 3.35e9));
  EXPECT_THAT(highest(),
              HasSubstr("within the noise (the ranges of their 2 and 3 sweeps overlap)"));
}

}  // namespace
}  // namespace dtbench
