#include "sync/bucket_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dtbench {
namespace {

// Negative ready times (a gradient that never came) count as the latest one.
std::vector<double> known_ready(const std::vector<double>& ready_s) {
  double last = 0;
  for (double t : ready_s) last = std::max(last, t);
  std::vector<double> out = ready_s;
  for (double& t : out) t = t < 0 ? last : t;
  return out;
}

// When an allreduce of `size` bytes that may leave at `start` ends.
double allreduce_end(double start, int64_t size, const LinkModel& link) {
  return start + link.latency_s + static_cast<double>(size) / link.bytes_per_s;
}

}  // namespace

BucketPlan plan_buckets(const std::vector<int64_t>& bytes, int64_t cap, int64_t first_cap) {
  BucketPlan buckets;
  int64_t rest = 0;
  for (int64_t b : bytes) rest += b;
  int64_t target = first_cap;
  int64_t filled = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (filled == 0) buckets.emplace_back();
    buckets.back().push_back(i);
    filled += bytes[i];
    rest -= bytes[i];
    if (filled >= target && rest > 0) {
      const int64_t k = (rest + cap - 1) / cap;
      target = (rest + k - 1) / k;
      filled = 0;
    }
  }
  return buckets;
}

double predicted_end_s(const BucketPlan& plan, const std::vector<int64_t>& bytes,
                       const std::vector<double>& ready_s, const LinkModel& link) {
  const std::vector<double> ready = known_ready(ready_s);
  double end = 0;
  for (const auto& bucket : plan) {
    int64_t size = 0;
    double last_ready = 0;
    for (size_t i : bucket) {
      size += bytes[i];
      last_ready = std::max(last_ready, ready[i]);
    }
    end = allreduce_end(std::max(end, last_ready), size, link);
  }
  return end;
}

BucketPlan plan_timed_buckets(const std::vector<int64_t>& bytes, const std::vector<double>& ready_s,
                              const LinkModel& link, int64_t cap) {
  const size_t n = bytes.size();
  const std::vector<double> ready = known_ready(ready_s);
  const double inf = std::numeric_limits<double>::infinity();
  // end[k][i]: the earliest time the first i gradients can all have been allreduced in k
  // buckets, the last of them being [cut[k][i], i). A later start never ends earlier, so the
  // best plan of i in k buckets extends the best plan of some j < i in k - 1.
  std::vector<std::vector<double>> end(n + 1, std::vector<double>(n + 1, inf));
  std::vector<std::vector<size_t>> cut(n + 1, std::vector<size_t>(n + 1, 0));
  end[0][0] = 0;
  for (size_t k = 1; k <= n; ++k) {
    for (size_t i = 1; i <= n; ++i) {
      int64_t size = 0, largest = 0;
      double last_ready = 0;
      // Grow the bucket [j, i) downwards; stop once it is over the cap and more than one
      // parameter holds its bytes.
      for (size_t j = i; j-- > 0;) {
        size += bytes[j];
        largest = std::max(largest, bytes[j]);
        last_ready = std::max(last_ready, ready[j]);
        if (size > cap && size != largest) break;
        // An empty bucket would be an allreduce of nothing: zero-byte parameters join a
        // neighbour.
        if ((size == 0 && i - j < n) || std::isinf(end[k - 1][j])) continue;
        const double t = allreduce_end(std::max(last_ready, end[k - 1][j]), size, link);
        if (t < end[k][i]) {
          end[k][i] = t;
          cut[k][i] = j;
        }
      }
    }
  }
  // The fewest buckets among the plans that end earliest: where the link would wait for
  // backward anyway, the model prices an extra operation at nothing, but each one costs CPU
  // time on every rank (on hosts/local, 17 buckets where 4 end as early).
  constexpr double kSameEnd_s = 1e-9;
  size_t best = 0;
  for (size_t k = 1; k <= n; ++k) {
    if (end[k][n] < end[best][n] - kSameEnd_s) best = k;
  }
  BucketPlan plan;
  for (size_t k = best, i = n; k > 0; i = cut[k][i], --k) {
    plan.emplace_back();
    for (size_t m = cut[k][i]; m < i; ++m) plan.back().push_back(m);
  }
  std::reverse(plan.begin(), plan.end());
  return plan;
}

}  // namespace dtbench
