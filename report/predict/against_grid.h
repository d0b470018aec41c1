#pragma once
// A study held against a grid measured apart (docs/model.md, "A study against its grid"): every
// training experiment of the grid predicted from the study's results alone (its compute and
// sweeps, as the study's verify phase predicts a cell: candidates.h), against what the grid
// measured, judged as `dtbench predict` judges the model (accuracy_of: errors, Kendall's tau-b
// with the grid's repetitions' ranges as its noise).
#include <string>
#include <vector>

#include "report/predict/predict.h"

namespace dtbench {

struct GridAgreement {
  // Rows: the grid's experiments the study predicts, measured as the grid measured them.
  Prediction all;
  // The same rows, one per method at its default bucket size (the methods' order).
  Prediction methods;
  std::vector<std::string> not_predicted;  // "python_ddp (max_iters=40,...): why"
  // The study's system; where it is not the grid's (all.label: another machine, hosts or
  // links), the model is held across systems, not against its own.
  std::string study_system;
  static constexpr double kWithin = 0.10;  // every prediction within this of the grid
};

GridAgreement against_grid(const SystemResults& study, const SystemResults& grid);

// What `dtbench predict STUDY --grid GRID` prints: each cell predicted against measured, then
// over the methods and over every cell the errors and the order, and how many are within
// kWithin.
std::string against_grid_text(const GridAgreement& g);

}  // namespace dtbench
