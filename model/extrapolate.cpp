#include "model/extrapolate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace dtbench::model {

namespace {

constexpr double kNoCost = std::numeric_limits<double>::infinity();

// The latency per step at share 1, its growth per share, and sleeping ranks' growth past two a
// core, from small messages. A spinning rank's wait only grows with the ranks on its core; a
// sleeping one's may fall once they outnumber the cores: where each rank has a core, the core
// idles while its rank waits, and on a VM waking it costs more than a rank waits to be
// scheduled beside others (Gloo's allreduce of 64 B on 2 hosts of a 2-core EPYC VM: 1.2 ms per
// step swept after a rest, on 4 hosts 1.1 ms chained; extrapolation-netns-8-100mbit-epyc-vm-
// frag8k). Past that a sleeping rank's wait is counted once, unless the points measured two
// shares or more past one and the wait grew between them: every rank of a ring takes a turn in
// every step, however it waits (Gloo's allreduce of 64 B on the EPYC VM: 1.21 ms per step with 2
// ranks a core, 1.40 with 4; extrapolation-16-netns-16-100mbit-epyc-vm).
struct Latency {
  double at_one_s = 0, per_share_s = 0, past_two_s = 0;
};

Latency latency_of(const std::vector<SweepPoint>& small, const AlgorithmTime& time, Waits waits) {
  std::vector<double> steps, growth, past_two, seconds, weights;
  bool shares_differ = false;
  std::set<double> past_one;
  for (const SweepPoint& p : small) {
    const double n = time(p.ranks, p.bytes, {1, kNoCost});
    if (!(p.seconds > 0) || !(n > 0)) continue;
    steps.push_back(n);
    growth.push_back(n * share_growth(p.share, waits));
    past_two.push_back(n * std::max(0.0, p.share - 2));
    seconds.push_back(p.seconds);
    weights.push_back(1 / (p.seconds * p.seconds));
    shares_differ =
        shares_differ || share_growth(p.share, waits) != share_growth(small.front().share, waits);
    if (p.share > 1) past_one.insert(p.share);
  }
  if (seconds.empty()) return {};
  if (waits == Waits::sleep && past_one.size() >= 2) {
    try {
      const std::vector<double> c = fit_columns({steps, growth, past_two}, seconds, weights);
      if (c[0] >= 0 && c[0] + c[1] >= 0 && c[2] > 0) return {c[0], c[1], c[2]};
    } catch (const std::invalid_argument&) {
      // the steps do not tell the three apart: counted once
    }
  }
  if (shares_differ) {
    try {
      const std::vector<double> c = fit_columns({steps, growth}, seconds, weights);
      const bool may_fall = waits == Waits::sleep && c[0] + c[1] >= 0;
      if (c[0] >= 0 && (c[1] >= 0 || may_fall)) return {c[0], c[1]};
      if (c[0] < 0 && c[1] > 0) {  // all of it grows with the share
        return {0, fit_columns({growth}, seconds, weights)[0]};
      }
    } catch (const std::invalid_argument&) {
      // the steps do not tell the two apart: no growth
    }
  }
  return {std::max(0.0, fit_columns({steps}, seconds, weights)[0])};
}

}  // namespace

FittedLink fit_link_across(const std::vector<SweepPoint>& small,
                           const std::vector<SweepPoint>& sent, const AlgorithmTime& time,
                           double burst_bytes, bool relative, Waits waits) {
  FittedLink out;
  out.waits = waits;
  const Latency latency = latency_of(small, time, waits);
  out.link.latency_s = latency.at_one_s;
  out.latency_per_share_s = latency.per_share_s;
  out.latency_past_two_s = latency.past_two_s;
  out.link.burst_bytes = burst_bytes;
  std::vector<SweepPoint> used;
  for (const SweepPoint& p : sent) {
    if (p.seconds > 0 && time(p.ranks, p.bytes, {0, 1}) > 0) used.push_back(p);
  }
  if (used.empty()) return out;
  // The rate: least squares on seconds. Each time falls as the rate rises, so the sum of
  // squares is searched over the rate's logarithm: a scan, then golden sections around the
  // best. (Without a bucket the least squares has a closed form; with one a step's volume
  // depends on the rate, through what the bucket refills while the step waits.)
  const auto misfit = [&](double log_rate) {
    double sum = 0;
    for (const SweepPoint& p : used) {
      Link link = out.at(p.share);
      link.bytes_per_s = std::exp(log_rate);
      const double d = (time(p.ranks, p.bytes, link) - p.seconds) / (relative ? p.seconds : 1);
      sum += d * d;
    }
    return sum;
  };
  constexpr double kLow = 6.9, kHigh = 29.9;  // 1 kB/s to 10 TB/s
  constexpr int kScan = 230;
  double best = kLow, least = misfit(kLow);
  for (int i = 1; i <= kScan; ++i) {
    const double x = kLow + (kHigh - kLow) * i / kScan;
    const double m = misfit(x);
    if (m < least) best = x, least = m;
  }
  const double step = (kHigh - kLow) / kScan;
  double lo = std::max(kLow, best - step), hi = std::min(kHigh, best + step);
  const double golden = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 100; ++i) {
    const double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
    if (misfit(a) <= misfit(b)) {
      hi = b;
    } else {
      lo = a;
    }
  }
  const double rate = std::exp((lo + hi) / 2);
  if (!(rate > std::exp(kLow)) || !(rate < std::exp(kHigh))) return out;
  out.found = true;
  out.link.bytes_per_s = rate;
  return out;
}

namespace {

std::array<double ComputeProfile::*, 7> fitted_parts() {
  return {&ComputeProfile::data_s,          &ComputeProfile::forward_s,
          &ComputeProfile::backward_s,      &ComputeProfile::optimizer_s,
          &ComputeProfile::straggler_s,     &ComputeProfile::spread_p95_s,
          &ComputeProfile::slowest_excess_s};
}

}  // namespace

ComputeProfile compute_at(const std::vector<ComputeAt>& measured, double share, double batch) {
  if (measured.empty()) throw std::invalid_argument("no compute measured");
  const ComputeProfile& last = measured.back().profile;
  ComputeProfile out = last;
  std::vector<double> per_rank, per_sample, ones(measured.size(), 1.0);
  for (const ComputeAt& m : measured) {
    per_rank.push_back(m.share);
    per_sample.push_back(m.share * m.batch);
  }
  for (double ComputeProfile::*part : fitted_parts()) {
    std::vector<double> t;
    t.reserve(measured.size());
    for (const ComputeAt& m : measured) t.push_back(m.profile.*part);
    const std::vector<double> fit = fit_columns({per_rank, per_sample}, t, ones);
    out.*part = std::max(0.0, share * (fit[0] + fit[1] * batch));
  }
  for (double& r : out.ready_s) {
    r = last.backward_s > 0 ? r / last.backward_s * out.backward_s : 0;
  }
  return out;
}

}  // namespace dtbench::model
