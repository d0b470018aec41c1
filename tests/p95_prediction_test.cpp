// The p95 iteration predicted beside the mean: the predicted mean times the p95-to-mean ratio
// that the other methods of the same workload and backend measured, never the method's own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "report/predict/p95.h"
#include "report/predict/predict.h"

namespace dtbench {
namespace {

using ::testing::HasSubstr;

TrainRun run_of(const std::string& sync, const std::string& backend, int ranks) {
  TrainRun r;
  r.kind = "train";
  r.name = sync + "/" + backend;
  r.ranks = ranks;
  TrainConfig& c = r.record.config;
  c.model = "lenet5";
  c.world_size = ranks;
  c.sync = sync;
  c.backend = backend;
  return r;
}

PredictedExperiment row_of(const TrainRun& run, const std::string& label, double mean_s,
                           double p95_s, double predicted_s) {
  PredictedExperiment row;
  row.run = &run;
  row.label = label;
  row.measured_s = mean_s;
  row.measured_p95_s = p95_s;
  row.predicted.sync_s = predicted_s;
  row.predicted_p95_s = predicted_s + 0.001;  // the compute's spread
  return row;
}

TEST(P95Prediction, TakesTheMedianRatioOfTheOtherMethodsOfItsWorkloadAndBackend) {
  const std::vector<TrainRun> runs = {
      run_of("allreduce", "mpi", 4),      run_of("gather_scatter", "mpi", 4),
      run_of("ring_allreduce", "mpi", 4), run_of("ring_reduce", "mpi", 4),
      run_of("allreduce", "gloo", 4),     run_of("allreduce", "mpi", 8)};
  std::vector<PredictedExperiment> rows = {
      // Its own p95 is 2x its mean: it must not count for itself.
      row_of(runs[0], "allreduce", 0.010, 0.020, 0.011),
      row_of(runs[1], "gather_scatter", 0.020, 0.022, 0.021),  // 1.1
      row_of(runs[2], "ring_allreduce", 0.010, 0.012, 0.009),  // 1.2
      row_of(runs[3], "ring_reduce", 0.010, 0.014, 0.010),     // 1.4
      // Over Gloo, and on 8 ranks, another workload or backend: alone, no ratio to take.
      row_of(runs[4], "allreduce/gloo", 0.050, 0.090, 0.050),
      row_of(runs[5], "allreduce", 0.030, 0.060, 0.028)};
  EXPECT_EQ(p95_from_other_methods(rows, rows), 2);
  // allreduce: the median of 1.1, 1.2 and 1.4.
  EXPECT_NEAR(rows[0].predicted_p95_s, 0.011 * 1.2, 1e-12);
  // gather_scatter: the median of allreduce's 2.0, 1.2 and 1.4.
  EXPECT_NEAR(rows[1].predicted_p95_s, 0.021 * 1.4, 1e-12);
  // ring_reduce: of 2.0, 1.1 and 1.2.
  EXPECT_NEAR(rows[3].predicted_p95_s, 0.010 * 1.2, 1e-12);
  // Alone in their workload and backend: the mean plus the compute's spread, as they were.
  EXPECT_NEAR(rows[4].predicted_p95_s, 0.051, 1e-12);
  EXPECT_NEAR(rows[5].predicted_p95_s, 0.029, 1e-12);
}

TEST(P95Prediction, AMethodMeasuredAgainElsewhereIsStillItself) {
  // The same method measured by two experiments (another group, its aggregation): neither row
  // reads the other, so with only that method over a backend nothing is predicted from a ratio.
  const std::vector<TrainRun> runs = {run_of("allreduce", "mpi", 4), run_of("allreduce", "mpi", 4)};
  std::vector<PredictedExperiment> rows = {row_of(runs[0], "allreduce", 0.010, 0.013, 0.010),
                                           row_of(runs[1], "allreduce", 0.011, 0.015, 0.010)};
  EXPECT_EQ(p95_from_other_methods(rows, rows), 2);
  EXPECT_NEAR(rows[0].predicted_p95_s, 0.011, 1e-12);
  EXPECT_NEAR(rows[1].predicted_p95_s, 0.011, 1e-12);
}

TEST(P95Prediction, PastTheRanksFittedOnTheRatioIsReadWhereItWasFitted) {
  // Predicting 8 ranks from 2 and 4: the ratio of the other methods on 4 ranks, not of those on
  // 8 (the runs judged) nor on 2.
  const std::vector<TrainRun> runs = {
      run_of("allreduce", "mpi", 8),      run_of("gather_scatter", "mpi", 8),
      run_of("gather_scatter", "mpi", 4), run_of("ring_reduce", "mpi", 4),
      run_of("allreduce", "mpi", 4),      run_of("ring_reduce", "mpi", 2)};
  const std::vector<PredictedExperiment> measured = {
      row_of(runs[1], "gather_scatter", 0.040, 0.080, 0.040),  // 2.0, on 8
      row_of(runs[2], "gather_scatter", 0.020, 0.022, 0.020),  // 1.1
      row_of(runs[3], "ring_reduce", 0.020, 0.026, 0.020),     // 1.3
      row_of(runs[4], "allreduce", 0.010, 0.019, 0.010),       // its own: left out
      row_of(runs[5], "ring_reduce", 0.010, 0.030, 0.010)};    // 3.0, on 2
  std::vector<PredictedExperiment> rows = {row_of(runs[0], "allreduce", 0.030, 0.036, 0.028)};
  EXPECT_EQ(p95_from_other_methods(rows, measured, 4), 0);
  EXPECT_NEAR(rows[0].predicted_p95_s, 0.028 * 1.2, 1e-12);
}

TEST(P95Prediction, TheSentenceSaysWhichWayEachRowWasPredicted) {
  const std::vector<TrainRun> runs = {run_of("allreduce", "mpi", 4),
                                      run_of("gather_scatter", "mpi", 4),
                                      run_of("allreduce", "gloo", 4)};
  Prediction p;
  p.rows = {row_of(runs[0], "allreduce", 0.010, 0.012, 0.010),
            row_of(runs[1], "gather_scatter", 0.020, 0.026, 0.020),
            row_of(runs[2], "allreduce/gloo", 0.050, 0.060, 0.050)};
  const std::string before = p95_sentence(p);
  EXPECT_THAT(before, HasSubstr("predicted as the mean plus the compute's spread"));
  p.p95_without_others = p95_from_other_methods(p.rows, p.rows);
  EXPECT_EQ(p.p95_without_others, 1);
  const std::string after = p95_sentence(p);
  EXPECT_THAT(after, HasSubstr("the p95-to-mean ratio that the other methods of its workload and "
                               "backend measured"));
  EXPECT_THAT(after, HasSubstr("for the 1 with no other method, as the mean plus the compute's"));
  // allreduce at gather_scatter's 1.3: 0.013 against 0.012 measured, +8.3%; gather_scatter at
  // allreduce's 1.2: 0.024 against 0.026, -7.7%; allreduce/gloo 0.051 against 0.060, -15.0%.
  EXPECT_THAT(after, HasSubstr("mean |error| 10.3%, largest -15.0% (allreduce/gloo)"));
  p.p95_ratio_ranks = 4;
  EXPECT_THAT(p95_sentence(p), HasSubstr("backend measured on 4 ranks (the median over them"));
}

}  // namespace
}  // namespace dtbench
