#include "stats/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dtbench {

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double pos = q / 100.0 * static_cast<double>(values.size() - 1);
  auto lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

double t_quantile_975(int64_t df) {
  // Exact values for small df; beyond, the Cornish-Fisher expansion around the normal
  // quantile, accurate to better than 1e-4 from df = 11 on.
  static const double table[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571,
                                 2.447, 2.365,  2.306, 2.262, 2.228};
  if (df <= 0) return 0;
  if (df <= 10) return table[df];
  const double z = 1.959963984540054, v = static_cast<double>(df);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

Summary summarize(const std::vector<double>& values) {
  Summary s;
  s.n = static_cast<int64_t>(values.size());
  if (values.empty()) return s;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(s.n);
  s.median = percentile(values, 50);
  s.p95 = percentile(values, 95);
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stdev = s.n > 1 ? std::sqrt(squares / static_cast<double>(s.n - 1)) : 0;
  double half = t_quantile_975(s.n - 1) * s.stdev / std::sqrt(static_cast<double>(s.n));
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  return s;
}

std::vector<double> window(const std::vector<double>& values, int64_t first, int64_t last) {
  auto size = static_cast<int64_t>(values.size());
  int64_t end = std::min(last + 1, size);
  if (first >= end) return {};
  return {values.begin() + first, values.begin() + end};
}

}  // namespace dtbench
