#pragma once
// The model past the ranks it was fitted on (docs/model.md): each training experiment on the
// most ranks a directory holds, predicted from its runs and sweeps on fewer ranks only. The
// compute from the blocking runs on each smaller rank count (model::compute_at), each
// strategy's link fitted to the sweeps of the collectives it calls on those counts at once
// (model::fit_link_across), communication's CPU from the largest count's sweep.
#include <string>
#include <vector>

#include "report/predict/predict.h"

namespace dtbench {

struct Extrapolation {
  int ranks = 0;          // the runs predicted; 0: the directory has too few rank counts
  std::vector<int> from;  // the rank counts the inputs came from
  Prediction prediction;  // rows: the runs on `ranks` ranks; notes: each input's source
};

// Needs training runs on at least 3 rank counts (the compute takes 2 below the largest).
Extrapolation extrapolate_system(const SystemResults& s);
// The same, made once and kept in `s` (as prediction_of keeps the prediction).
const Extrapolation& extrapolation_of(const SystemResults& s);

// What dtbench predict prints of it: the inputs, each run predicted against measured, and the
// errors; "" when the directory has too few rank counts.
std::string extrapolation_text(const Extrapolation& e);

}  // namespace dtbench
