#include "model/cost_model.h"

#include <stdexcept>

namespace dtbench::model {

double ring_allreduce_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return 2.0 * (n - 1) * link.time(bytes / n);
}

double gather_scatter_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return 2.0 * link.time((n - 1) * bytes);
}

double chain_reduce_broadcast_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return 2.0 * (n - 1) * link.time(bytes);
}

double tree_reduce_broadcast_s(int n, double bytes, const Link& link) {
  int steps = 0;
  for (int reach = 1; reach < n; reach *= 2) ++steps;
  return 2.0 * steps * link.time(bytes);
}

double ring_allgather_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return (n - 1) * link.time(bytes);
}

double hierarchical_allreduce_s(int hosts, int per_host, double bytes, const Link& inside,
                                const Link& between) {
  return chain_reduce_broadcast_s(per_host, bytes, inside) +
         ring_allreduce_s(hosts, bytes, between);
}

double MeasuredCost::time(double b) const {
  const size_t n = bytes.size();
  if (n == 0) return 0;
  if (n == 1 || b <= bytes[0]) return seconds[0];
  size_t i = 1;
  while (i < n - 1 && bytes[i] < b) ++i;
  const double slope = (seconds[i] - seconds[i - 1]) / (bytes[i] - bytes[i - 1]);
  return seconds[i - 1] + slope * (b - bytes[i - 1]);
}

Link link_of_ring_fit(int n, double alpha_s, double beta_s_per_byte) {
  return {alpha_s / (2.0 * (n - 1)), 2.0 * (n - 1) / (n * beta_s_per_byte)};
}

Line fit_line_relative(const std::vector<double>& x, const std::vector<double>& t) {
  // Minimise sum w (alpha + beta x - t)^2 with w = 1/t^2: the 2x2 normal equations.
  double sw = 0, sx = 0, sxx = 0, st = 0, sxt = 0;
  for (size_t i = 0; i < x.size() && i < t.size(); ++i) {
    const double w = 1.0 / (t[i] * t[i]);
    sw += w, sx += w * x[i], sxx += w * x[i] * x[i], st += w * t[i], sxt += w * x[i] * t[i];
  }
  const double det = sw * sxx - sx * sx;
  if (!(det > 0)) throw std::invalid_argument("a line needs two distinct sizes");
  return {(sxx * st - sx * sxt) / det, (sw * sxt - sx * st) / det};
}

}  // namespace dtbench::model
