#pragma once
// The 95th percentile iteration predicted beside the mean (docs/model.md, "The spread").
#include <vector>

#include "report/predict/predict.h"

namespace dtbench {

// Each row's p95 iteration as its predicted mean times the p95-to-mean ratio that the other
// methods of its workload and backend measured (report::noise_key), read off `measured`: per
// other experiment there, its p95 over the timed iterations of its repetitions / their mean;
// the median over them. On the row's own ranks, or, with `ranks` set, on that many (the
// extrapolation reads the most ranks it was fitted on). A method's own rows (every row with
// its label) are left out, so that on its own ranks no row's prediction reads its own
// measurement. Rows with no other method keep predicted_p95_s as it is (the mean plus the
// compute's spread). Returns how many rows had none.
int p95_from_other_methods(std::vector<PredictedExperiment>& rows,
                           const std::vector<PredictedExperiment>& measured, int ranks = 0);

}  // namespace dtbench
