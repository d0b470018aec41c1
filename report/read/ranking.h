#pragma once
// Whether a model orders experiments as the measurement does: Kendall's tau-b between the
// measured and the predicted times, with experiments whose measurements are within each other's
// noise counted as tied (as the predictors dPRO and Proteus are judged: error, and the ranking
// of strategies preserved).
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace dtbench {

struct RankAgreement {
  int items = 0;
  int pairs = 0;                                   // the comparable pairs of items
  int concordant = 0;                              // ordered alike by both
  int discordant = 0;                              // ordered the other way by the prediction
  int tied_measured = 0;                           // within each other's noise
  int tied_predicted = 0;                          // predicted equal to 0.1 ms
  double tau_b = 0;                                // NaN when every pair is tied on one side
  std::vector<std::pair<size_t, size_t>> swapped;  // the discordant pairs (i, j)
  bool preserved() const { return discordant == 0; }
};

// measured[i] and predicted[i] are item i's times in seconds; tied(i, j) says whether the
// measurements of i and j are within each other's noise. Predictions equal to 0.1 ms are tied.
// comparable(i, j): whether i and j are a pair to order at all (predict: two methods on one
// workload); empty, every pair is.
RankAgreement rank_agreement(const std::vector<double>& measured,
                             const std::vector<double>& predicted,
                             const std::function<bool(size_t, size_t)>& tied,
                             const std::function<bool(size_t, size_t)>& comparable = {});

}  // namespace dtbench
