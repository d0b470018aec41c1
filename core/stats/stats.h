#pragma once
#include <cstdint>
#include <vector>

namespace dtbench {

// Descriptive statistics of a sample, with a two-sided 95% Student-t confidence interval for
// the mean (undefined, reported as the mean itself, for fewer than two values).
struct Summary {
  int64_t n = 0;
  double mean = 0, median = 0, p95 = 0, stdev = 0, min = 0, max = 0;
  double ci95_low = 0, ci95_high = 0;
};

Summary summarize(const std::vector<double>& values);

// A mean kept as values arrive; -1 before the first.
struct Mean {
  double sum = 0;
  int count = 0;
  void add(double v) { sum += v, ++count; }
  double value() const { return count > 0 ? sum / count : -1; }
};

// Linear-interpolation percentile (numpy's default), q in [0, 100].
double percentile(std::vector<double> values, double q);

// The 0.975 quantile of Student's t with df degrees of freedom.
double t_quantile_975(int64_t df);

// values[first .. last] clipped to what exists: the course's "iterations 1..39" window.
std::vector<double> window(const std::vector<double>& values, int64_t first, int64_t last);

}  // namespace dtbench
