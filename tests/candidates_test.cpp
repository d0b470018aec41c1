// The study's verify phase predicts cells it has not measured (report/predict/candidates.h).
// Held against the path trusted for measured ones, `dtbench predict` (predict_system): a cell
// with a measured experiment's config gets that experiment's prediction.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "catalogue/methods.h"
#include "report/predict/candidates.h"
#include "report/predict/predict.h"
#include "report/read/results.h"

namespace dtbench {
namespace {

const std::string kModelFixture =
    DTBENCH_SOURCE_DIR "/tests/fixtures/results/model-netns-4-1gbit-xeon-vm";

TEST(Candidates, ACellLikeAMeasuredExperimentGetsItsPrediction) {
  const Results results = load_results({kModelFixture});
  const SystemResults& s = results.systems.at(0);
  const Prediction& p = prediction_of(s);
  int compared = 0;
  for (const PredictedExperiment& row : p.rows) {
    const TrainConfig& c = row.run->record.config;
    if (!row.run->bottleneck_rate.empty()) continue;
    const CandidateCell cell = predict_cell(s, c, row.run->name);
    ASSERT_FALSE(std::isnan(cell.predicted_s)) << row.label << ": " << cell.basis;
    // Buckets planned before the run, against the plan the run recorded: bucketed's from the
    // measured ready times and the fitted link (the run's from its start-up probe) within 1%;
    // c10d_ddp's DDP's plan from its cap (the Reducer rebuilds its buckets in the order the
    // gradients came) within 5%; the per-tensor methods have none to differ.
    const Engine engine = find_method(c.sync).engine;
    const double tolerance = engine == Engine::per_tensor ? 1e-9
                             : c.sync == "c10d_ddp"       ? 0.05
                                                          : 0.01;
    EXPECT_NEAR(cell.predicted_s / row.predicted.total_s(), 1, tolerance) << row.label;
    ++compared;
  }
  EXPECT_GE(compared, 12);
}

TEST(Candidates, WhatCannotBePredictedSaysWhy) {
  const Results results = load_results({kModelFixture});
  const SystemResults& s = results.systems.at(0);
  TrainConfig c = s.runs.at(0).record.config;
  c.sync = "python_ddp";
  EXPECT_TRUE(std::isnan(predict_cell(s, c).predicted_s));
  EXPECT_EQ(predict_cell(s, c).basis, "python_ddp is not modelled");
  // Its budget: c10d_ddp's prediction over Gloo, the reducer Python DDP runs.
  TrainConfig reducer = c;
  reducer.sync = "c10d_ddp";
  reducer.backend = "gloo";
  ASSERT_FALSE(std::isnan(predict_cell(s, reducer).predicted_s));
  EXPECT_EQ(predict_cell(s, c).expected_s, predict_cell(s, reducer).predicted_s);
  c.sync = "allreduce";
  c.world_size = 8;
  EXPECT_TRUE(std::isnan(predict_cell(s, c).predicted_s));
  EXPECT_EQ(predict_cell(s, c).basis, "no run of vgg11 at batch 256 on 8 ranks");
  EXPECT_TRUE(std::isnan(predict_cell(s, c).expected_s));
}

// The best two predicted first, fastest first; then what the model cannot predict (measured to
// learn it); then the rest from the fastest.
TEST(Candidates, TheBestPredictedComeFirstThenTheUnknownThenTheRest) {
  const Results results = load_results({kModelFixture});
  const SystemResults& s = results.systems.at(0);
  std::vector<TrainConfig> cells;
  for (const char* sync : {"gather_scatter", "python_ddp", "allreduce", "ring_allreduce",
                           "bucketed", "allgather", "ring_reduce"}) {
    TrainConfig c = s.runs.at(0).record.config;
    c.sync = sync;
    c.backend = "mpi";
    c.sync_options.mode = default_mode_of(sync == std::string("python_ddp") ? "allreduce" : sync);
    cells.push_back(c);
  }
  const std::vector<CandidateCell> order = order_candidates(s, cells, 2);
  ASSERT_EQ(order.size(), cells.size());
  std::set<size_t> seen;
  for (const CandidateCell& c : order) seen.insert(c.index);
  EXPECT_EQ(seen.size(), cells.size());
  EXPECT_EQ(cells[order[2].index].sync, "python_ddp");
  EXPECT_TRUE(std::isnan(order[2].predicted_s));
  std::vector<double> known;
  for (const CandidateCell& c : order) {
    if (!std::isnan(c.predicted_s)) known.push_back(c.predicted_s);
  }
  ASSERT_EQ(known.size(), cells.size() - 1);
  for (size_t i = 1; i < known.size(); ++i) EXPECT_LE(known[i - 1], known[i]) << i;
}

}  // namespace
}  // namespace dtbench
