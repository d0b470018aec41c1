#include "model/token_buckets.h"

#include <algorithm>
#include <limits>

namespace dtbench::model {

Buckets::Buckets(int n, const Link& link, double held)
    : link_(link),
      out_(static_cast<size_t>(n),
           held < 0 ? Level{link.burst_bytes, -std::numeric_limits<double>::infinity()}
                    : Level{std::min(held, link.burst_bytes), 0}),
      in_(out_) {}

double Buckets::held(const Level& l, double t) const {
  if (!(link_.burst_bytes > 0)) return 0;
  return std::min(link_.burst_bytes, l.bytes + link_.bytes_per_s * std::max(0.0, t - l.at));
}

double Buckets::send(int from, int to, double bytes, double start) {
  Level& out = out_.at(static_cast<size_t>(from));
  Level& in = in_.at(static_cast<size_t>(to));
  const double leaves = start + link_.latency_s;
  const double out_held = held(out, leaves), in_held = held(in, leaves);
  const double arrives =
      leaves + std::max(0.0, bytes - std::min(out_held, in_held)) / link_.bytes_per_s;
  // Both refill while the message goes at the rate; the emptier one ends empty.
  const double refilled = link_.bytes_per_s * (arrives - leaves);
  out = {std::clamp(out_held + refilled - bytes, 0.0, link_.burst_bytes), arrives};
  in = {std::clamp(in_held + refilled - bytes, 0.0, link_.burst_bytes), arrives};
  return arrives;
}

double settled_call_s(int n, const Link& link,
                      const std::function<double(Buckets&, double start)>& call) {
  // A bucket refills fully within one call once a call takes burst / rate; four calls settle
  // every algorithm here (each link's turns repeat with every call).
  const int calls = link.burst_bytes > 0 ? 4 : 1;  // without a bucket every call is the same
  Buckets buckets(n, link);
  double start = 0, end = 0;
  for (int i = 0; i < calls; ++i) {
    start = end;
    end = call(buckets, start);
  }
  return end - start;
}

}  // namespace dtbench::model
