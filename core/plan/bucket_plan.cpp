#include "plan/bucket_plan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>

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

constexpr size_t kShares = std::size(kSlowLinkShares);

// A plan of the first i gradients in k buckets: when it ends at the measured rate and at each
// of kSlowLinkShares of it; its last bucket is [cut, i), after plan `rest` of the first cut
// gradients in k - 1 buckets.
struct PartialPlan {
  double end_s = 0;
  std::array<double, kShares> slow_end_s{};
  size_t cut = 0;
  size_t rest = 0;
};

double slow_sum(const PartialPlan& p) {
  return std::accumulate(p.slow_end_s.begin(), p.slow_end_s.end(), 0.0);
}

bool no_later_everywhere(const PartialPlan& a, const PartialPlan& b) {
  if (a.end_s > b.end_s) return false;
  for (size_t s = 0; s < kShares; ++s) {
    if (a.slow_end_s[s] > b.slow_end_s[s]) return false;
  }
  return true;
}

// The plans that no other ends before at every rate, in order of end_s. A plan that another
// ends no later than at every rate is dropped: it can only end later, whatever follows it.
std::vector<PartialPlan> unbeaten(std::vector<PartialPlan> plans) {
  std::sort(plans.begin(), plans.end(), [](const PartialPlan& a, const PartialPlan& b) {
    return a.end_s != b.end_s ? a.end_s < b.end_s : a.slow_end_s < b.slow_end_s;
  });
  std::vector<PartialPlan> kept;
  for (const PartialPlan& p : plans) {
    const bool beaten = std::any_of(
        kept.begin(), kept.end(), [&](const PartialPlan& k) { return no_later_everywhere(k, p); });
    if (!beaten) kept.push_back(p);
  }
  return kept;
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

std::vector<int64_t> bucket_sizes(const BucketPlan& plan, const std::vector<int64_t>& bytes) {
  std::vector<int64_t> sizes;
  sizes.reserve(plan.size());
  for (const auto& bucket : plan) {
    sizes.push_back(0);
    for (size_t i : bucket) sizes.back() += bytes[i];
  }
  return sizes;
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
  std::array<LinkModel, kShares> slow;
  for (size_t s = 0; s < kShares; ++s)
    slow[s] = {link.latency_s, link.bytes_per_s * kSlowLinkShares[s]};
  // plans[k][i]: the plans of the first i gradients in k buckets that no other ends before at
  // every rate. A later start never ends earlier, at any rate, so the best plans of i in k
  // buckets extend those of some j < i in k - 1.
  std::vector<std::vector<std::vector<PartialPlan>>> plans(
      n + 1, std::vector<std::vector<PartialPlan>>(n + 1));
  plans[0][0] = {PartialPlan{}};
  for (size_t k = 1; k <= n; ++k) {
    for (size_t i = 1; i <= n; ++i) {
      std::vector<PartialPlan> found;
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
        if (size == 0 && i - j < n) continue;
        for (size_t b = 0; b < plans[k - 1][j].size(); ++b) {
          const PartialPlan& rest = plans[k - 1][j][b];
          PartialPlan p{allreduce_end(std::max(last_ready, rest.end_s), size, link), {}, j, b};
          for (size_t s = 0; s < kShares; ++s) {
            p.slow_end_s[s] =
                allreduce_end(std::max(last_ready, rest.slow_end_s[s]), size, slow[s]);
          }
          found.push_back(p);
        }
      }
      plans[k][i] = unbeaten(std::move(found));
    }
  }
  // The earliest end, then the least sum of the ends on the slower links, then the fewest
  // buckets: where the link would wait for backward anyway, the model prices an extra operation
  // at nothing, but each one costs CPU time on every rank (on hosts/local, 17 buckets where 4
  // end as early).
  constexpr double kSameEnd_s = 1e-9;
  const double inf = std::numeric_limits<double>::infinity();
  double best_end = inf, best_slow = inf;
  for (const auto& found : plans) {
    for (const PartialPlan& p : found[n]) best_end = std::min(best_end, p.end_s);
  }
  for (const auto& found : plans) {
    for (const PartialPlan& p : found[n]) {
      if (p.end_s <= best_end + kSameEnd_s) best_slow = std::min(best_slow, slow_sum(p));
    }
  }
  const auto is_best = [&](const PartialPlan& p) {
    return p.end_s <= best_end + kSameEnd_s && slow_sum(p) <= best_slow + kSameEnd_s;
  };
  size_t k = 0, b = 0;
  for (;; ++k) {
    const auto& found = plans[k][n];
    b = static_cast<size_t>(std::find_if(found.begin(), found.end(), is_best) - found.begin());
    if (b < found.size()) break;
  }
  BucketPlan plan;
  for (size_t i = n; k > 0; --k) {
    const PartialPlan& p = plans[k][i][b];
    plan.emplace_back();
    for (size_t m = p.cut; m < i; ++m) plan.back().push_back(m);
    i = p.cut;
    b = p.rest;
  }
  std::reverse(plan.begin(), plan.end());
  return plan;
}

}  // namespace dtbench
