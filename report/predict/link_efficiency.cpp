#include "report/predict/link_efficiency.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "common/network_spec.h"
#include "model/cost_model.h"
#include "report/predict/model_inputs.h"
#include "report/read/table.h"
#include "stats/stats.h"

namespace dtbench {
namespace {

// The allreduce's bus bandwidth at b bytes on n ranks, from the sweep's time there.
double busbw_at(const model::MeasuredCost& sweep, double b, int n) {
  const double t = sweep.time(b);
  return t > 0 ? model::ring_link_bytes(n, b) / t : 0;
}

}  // namespace

std::vector<LinkEfficiency> link_efficiency(const SystemResults& s) {
  const StatedRate stated = stated_rate(s.system);
  std::map<std::pair<std::string, int>, const CollectiveRun*> largest;
  for (const auto& c : s.collectives) {
    if (c.op != "allreduce" || c.ranks < 2) continue;
    const CollectiveRun*& best = largest[{c.backend, c.ranks}];
    if (best == nullptr || c.bytes > best->bytes) best = &c;
  }
  std::vector<LinkEfficiency> out;
  for (const auto& [key, c] : largest) {
    LinkEfficiency e;
    e.backend = key.first;
    e.ranks = key.second;
    e.bytes = c->bytes;
    e.busbw = c->busbw;
    e.rate = stated.slowest_bytes_per_s;
    e.rate_source = stated.source;
    const LinkEstimate link = fitted_link(s, e.backend, e.ranks, 0);
    if (link.found) e.n_half_bytes = link.link.latency_s * e.ranks * link.link.bytes_per_s;
    std::vector<double> buckets;
    for (const auto& r : s.runs) {
      if (r.kind != "train" || r.record.config.backend != e.backend ||
          r.record.config.world_size != e.ranks) {
        continue;
      }
      for (int64_t b : r.record.bucket_bytes) buckets.push_back(static_cast<double>(b));
    }
    if (!buckets.empty()) {
      e.bucket_bytes = percentile(buckets, 50);
      e.bucket_busbw =
          busbw_at(sweep_of(s, "allreduce", e.backend, e.ranks), e.bucket_bytes, e.ranks);
    }
    out.push_back(e);
  }
  return out;
}

std::string link_efficiency_text(const LinkEfficiency& e) {
  std::string text =
      fmt::format("{} allreduce on {} ranks at {:.1f} MiB: busbw {:.1f} MB/s", e.backend, e.ranks,
                  static_cast<double>(e.bytes) / (1 << 20), e.busbw / 1e6);
  if (e.rate > 0) {
    const bool normal = !is_slow(e.busbw, e.rate);
    text += fmt::format(", {:.0f}% of {} ({:.1f} MB/s of payload): {} ({} {:.0f}%)",
                        100 * e.efficiency(), e.rate_source, e.rate / 1e6,
                        normal ? "normal" : "below normal", normal ? "at least" : "under",
                        100 * SlowHosts::kSlowShare);
  } else {
    text += " (no link rate stated: nothing to hold it to)";
  }
  if (e.n_half_bytes > 0) {
    text += fmt::format("; n1/2 {:.0f} KiB (the fitted ring's latency x rate: half its peak)",
                        e.n_half_bytes / 1024);
  }
  if (e.bucket_bytes > 0) {
    text += fmt::format("; at the buckets the training sent (median {} MB) {:.1f} MB/s",
                        short_number(e.bucket_bytes / 1e6), e.bucket_busbw / 1e6);
    if (e.rate > 0) text += fmt::format(" ({:.0f}%)", 100 * e.bucket_busbw / e.rate);
  }
  return text;
}

}  // namespace dtbench
