#pragma once
// The study's verify phase (docs/harness.md, "The study"): cells of the grid that were not
// measured, each predicted by the cost model from what the study measured before it (the
// compute of a traced blocking run of the same model, batch and ranks; the sweeps), so that the
// cells that decide the answer are measured first.
#include <cstddef>
#include <string>
#include <vector>

#include "model/iteration_model.h"
#include "record/config.h"
#include "report/read/results.h"

namespace dtbench {

struct CandidateCell {
  size_t index = 0;        // in the candidates given
  double predicted_s = 0;  // NaN: not predicted (basis says why)
  // The iteration time a budget weighs the cell by: its prediction; for Python DDP, which is not
  // modelled, c10d_ddp's over Gloo (the same reducer, same model, batch and ranks). NaN: none.
  double expected_s = 0;
  std::string basis;        // what the prediction rests on, or why there is none
  model::Phases phases;     // the prediction phase by phase (predicted_s their total)
  double spread_p95_s = 0;  // the compute's p95 spread (model::ComputeProfile::spread_p95_s)
};

// A training run's iteration time predicted from s without measuring it: c resolved (its
// world_size the ranks it would run on, its backend named). Buckets as its engine would cut them:
// bucketed's from the measured ready times and the fitted link (the run plans from its own
// start-up probe, which no prediction made before the run has), c10d_ddp's DDP's plan. NaN and why
// when an input is missing (no traced blocking run of c's model, batch and ranks; no link for its
// backend). Python DDP (c.sync "python_ddp") is not predicted; its expected_s is c10d_ddp's.
// `own`: an experiment of s that c is, whose runs the prediction does not use.
CandidateCell predict_cell(const SystemResults& s, const TrainConfig& c,
                           const std::string& own = "");

// The order to measure candidates in: the `best` predicted fastest first, then those the model
// could not predict, then the rest from the fastest; each with its prediction.
std::vector<CandidateCell> order_candidates(const SystemResults& s,
                                            const std::vector<TrainConfig>& candidates,
                                            size_t best = 2);

// A study's verify cells as verify.json in s's directories keeps them (in the order measured),
// each with what was measured of it: the mean over its repetitions of each one's mean
// iteration time (NaN and 0 repetitions when the budget left it predicted only).
struct VerifiedCell {
  std::string experiment;
  double predicted_s = 0;  // NaN: not predicted
  std::string basis;
  int reps = 0;
  double measured_s = 0;
  double error() const { return predicted_s / measured_s - 1; }
};
std::vector<VerifiedCell> verified_cells(const SystemResults& s);

}  // namespace dtbench
