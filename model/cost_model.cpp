#include "model/cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "model/token_buckets.h"

namespace dtbench::model {

double ring_allreduce_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return 2.0 * (n - 1) * link.time(bytes / n);
}

double gather_scatter_call(int n, double bytes, Buckets& b, double start) {
  // Rank 0's way in takes the gather's (n-1) S, then its way out sends the scatter's: through
  // token buckets each rests, and refills, while the other works.
  return b.send(0, 1, (n - 1) * bytes, b.send(1, 0, (n - 1) * bytes, start));
}

double gather_scatter_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return settled_call_s(
      n, link, [n, bytes](Buckets& b, double t) { return gather_scatter_call(n, bytes, b, t); });
}

double chain_reduce_broadcast_call(int n, double bytes, Buckets& b, double start) {
  // The hops as ring_reduce makes them: the sum 1 -> 2 -> ... -> n-1 -> 0, then 0 -> 1 -> ...
  // -> n-1; each link rests while the others hop.
  double t = start;
  for (int r = 1; r < n; ++r) t = b.send(r, (r + 1) % n, bytes, t);
  for (int r = 0; r + 1 < n; ++r) t = b.send(r, r + 1, bytes, t);
  return t;
}

double chain_reduce_broadcast_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return settled_call_s(n, link, [n, bytes](Buckets& b, double t) {
    return chain_reduce_broadcast_call(n, bytes, b, t);
  });
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
  const auto count = [this](double x) {
    const double m = messages ? messages(x) : 1;
    return m > 0 ? m : 1;
  };
  size_t i = 1;
  while (i < n - 1 && bytes[i] < b) ++i;
  const double low = seconds[i - 1] / count(bytes[i - 1]), high = seconds[i] / count(bytes[i]);
  const double slope = (high - low) / (bytes[i] - bytes[i - 1]);
  return count(b) * (low + slope * (b - bytes[i - 1]));
}

void read_out_noise(MeasuredCost& m) {
  double least_above = std::numeric_limits<double>::infinity();
  for (size_t i = m.seconds.size(); i-- > 0;) {
    if (m.seconds[i] > kNoiseFactor * least_above) {
      m.noisy_bytes.insert(m.noisy_bytes.begin(), m.bytes[i]);
      m.seconds[i] = least_above;
    }
    least_above = std::min(least_above, m.seconds[i]);
  }
}

Link link_of_ring_fit(int n, double alpha_s, double beta_s_per_byte) {
  return {alpha_s / (2.0 * (n - 1)), 2.0 * (n - 1) / (n * beta_s_per_byte)};
}

Line fit_line_relative(const std::vector<double>& x, const std::vector<double>& t) {
  std::vector<double> w;
  w.reserve(t.size());
  for (double v : t) w.push_back(1.0 / (v * v));
  const std::vector<double> c = fit_columns({std::vector<double>(x.size(), 1.0), x}, t, w);
  return {c[0], c[1]};
}

std::vector<double> fit_columns(const std::vector<std::vector<double>>& columns,
                                const std::vector<double>& t, const std::vector<double>& w) {
  // The normal equations of the columns scaled to unit norm (so that a latency's column and a
  // volume's compare), solved by elimination with partial pivoting.
  const size_t k = columns.size(), n = std::min(t.size(), w.size());
  std::vector<double> norm(k, 0.0);
  for (size_t c = 0; c < k; ++c) {
    for (size_t i = 0; i < n; ++i) norm[c] += w[i] * columns[c][i] * columns[c][i];
    norm[c] = std::sqrt(norm[c]);
    if (!(norm[c] > 0)) throw std::invalid_argument("a line needs two distinct sizes");
  }
  std::vector<std::vector<double>> a(k, std::vector<double>(k + 1, 0.0));
  for (size_t i = 0; i < n; ++i) {
    for (size_t r = 0; r < k; ++r) {
      for (size_t c = 0; c < k; ++c) {
        a[r][c] += w[i] * columns[r][i] * columns[c][i] / (norm[r] * norm[c]);
      }
      a[r][k] += w[i] * columns[r][i] * t[i] / norm[r];
    }
  }
  for (size_t c = 0; c < k; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < k; ++r) {
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    }
    std::swap(a[c], a[pivot]);
    if (!(std::abs(a[c][c]) > 1e-9)) throw std::invalid_argument("a line needs two distinct sizes");
    for (size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (size_t j = c; j <= k; ++j) a[r][j] -= f * a[c][j];
    }
  }
  std::vector<double> out(k);
  for (size_t r = 0; r < k; ++r) out[r] = a[r][k] / a[r][r] / norm[r];
  return out;
}

double pair_in_flight_s(const PairTime& pair, const InFlightShares& shares) {
  // Each part's bytes counted as their time on the wire, its time alone given.
  const InFlight two{2, [](double wire_s) { return wire_s; }, shares};
  const std::vector<Bucket> parts = {{pair.first_wire_s, 0, -1, pair.first_s},
                                     {pair.second_wire_s, 0, -1, pair.second_s}};
  double end = 0;
  for (const Transfer& t : transfers_of(
           parts, [](double) { return 0.0; }, {}, two)) {
    end = std::max(end, t.end);
  }
  return end;
}

InFlightShares fitted_in_flight_shares(const std::vector<PairTime>& even,
                                       const std::vector<PairTime>& uneven) {
  InFlightShares best;
  if (even.empty() && uneven.empty()) return best;
  double least = std::numeric_limits<double>::infinity();
  const int least_before = uneven.empty() ? 100 : 0;  // untold without an uneven pair: 1
  for (int b = 100; b >= least_before; --b) {
    for (int w = 0; w <= 300; ++w) {
      const InFlightShares shares{w / 100.0, b / 100.0};
      double error = 0;
      for (const auto* pairs : {&even, &uneven}) {
        for (const PairTime& p : *pairs) {
          const double relative = pair_in_flight_s(p, shares) / p.measured_s - 1;
          error += relative * relative;
        }
      }
      if (error < least - 1e-12) best = shares, least = error;
    }
  }
  return best;
}

}  // namespace dtbench::model
