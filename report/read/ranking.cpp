#include "report/read/ranking.h"

#include <cmath>
#include <limits>

namespace dtbench {
namespace {

// Predictions the same to the 0.1 ms the tables print: one plan predicted 1.82187 s and another
// 1.82191 s are not an order the model claims.
bool predicted_equal(double a, double b) {
  return std::round(a * 1e4) == std::round(b * 1e4);
}

}  // namespace

RankAgreement rank_agreement(const std::vector<double>& measured,
                             const std::vector<double>& predicted,
                             const std::function<bool(size_t, size_t)>& tied,
                             const std::function<bool(size_t, size_t)>& comparable) {
  RankAgreement a;
  const size_t n = measured.size();
  a.items = static_cast<int>(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (comparable && !comparable(i, j)) continue;
      ++a.pairs;
      const bool m_tied = tied(i, j) || measured[i] == measured[j];
      const bool p_tied = predicted_equal(predicted[i], predicted[j]);
      a.tied_measured += m_tied ? 1 : 0;
      a.tied_predicted += p_tied ? 1 : 0;
      if (m_tied || p_tied) continue;
      if ((measured[i] < measured[j]) == (predicted[i] < predicted[j])) {
        ++a.concordant;
      } else {
        ++a.discordant;
        a.swapped.emplace_back(i, j);
      }
    }
  }
  const double denominator = std::sqrt(static_cast<double>(a.pairs - a.tied_measured) *
                                       static_cast<double>(a.pairs - a.tied_predicted));
  a.tau_b = denominator > 0 ? (a.concordant - a.discordant) / denominator
                            : std::numeric_limits<double>::quiet_NaN();
  return a;
}

}  // namespace dtbench
