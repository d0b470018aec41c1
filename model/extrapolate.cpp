#include "model/extrapolate.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace dtbench::model {

namespace {

constexpr double kNoCost = std::numeric_limits<double>::infinity();

// The latency per step at share 1 and its growth per share, from small messages.
std::pair<double, double> latency_of(const std::vector<SweepPoint>& small,
                                     const AlgorithmTime& time) {
  std::vector<double> steps, growth, seconds, weights;
  bool shares_differ = false;
  for (const SweepPoint& p : small) {
    const double n = time(p.ranks, p.bytes, {1, kNoCost});
    if (!(p.seconds > 0) || !(n > 0)) continue;
    steps.push_back(n);
    growth.push_back(n * (p.share - 1));
    seconds.push_back(p.seconds);
    weights.push_back(1 / (p.seconds * p.seconds));
    shares_differ = shares_differ || p.share != small.front().share;
  }
  if (seconds.empty()) return {0, 0};
  if (shares_differ) {
    try {
      const std::vector<double> c = fit_columns({steps, growth}, seconds, weights);
      if (c[0] >= 0 && c[1] >= 0) return {c[0], c[1]};
      if (c[0] < 0 && c[1] > 0) {  // all of it grows with the share
        return {0, fit_columns({growth}, seconds, weights)[0]};
      }
    } catch (const std::invalid_argument&) {
      // the steps do not tell the two apart: no growth
    }
  }
  return {std::max(0.0, fit_columns({steps}, seconds, weights)[0]), 0};
}

}  // namespace

FittedLink fit_link_across(const std::vector<SweepPoint>& small,
                           const std::vector<SweepPoint>& sent, const AlgorithmTime& time) {
  FittedLink out;
  std::tie(out.link.latency_s, out.latency_per_share_s) = latency_of(small, time);
  // The rate: what is left of each time once its steps' latency is off, over its volume term.
  std::vector<double> volume, rest, ones;
  for (const SweepPoint& p : sent) {
    const double v = time(p.ranks, p.bytes, {0, 1});
    if (!(p.seconds > 0) || !(v > 0)) continue;
    volume.push_back(v);
    rest.push_back(p.seconds - time(p.ranks, 0, out.at(p.share)));
    ones.push_back(1);
  }
  if (volume.empty()) return out;
  const double inverse_rate = fit_columns({volume}, rest, ones)[0];
  if (!(inverse_rate > 0)) return out;
  out.found = true;
  out.link.bytes_per_s = 1 / inverse_rate;
  return out;
}

namespace {

std::array<double ComputeProfile::*, 6> fitted_parts() {
  return {&ComputeProfile::data_s,      &ComputeProfile::forward_s,
          &ComputeProfile::backward_s,  &ComputeProfile::optimizer_s,
          &ComputeProfile::straggler_s, &ComputeProfile::spread_p95_s};
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
