// Figure 3, "Collectives alone": its table, caption and sentences, drawn by fig03_collectives.gp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "common/network_spec.h"
#include "common/text.h"
#include "report/figures/common.h"
#include "report/predict/link_efficiency.h"
#include "stats/stats.h"

namespace dtbench::report {

namespace {

constexpr int64_t kFourMiB = 4 << 20;

// The link's bandwidth in bytes/s: the shaped rate of an emulated cluster (its slowest link),
// otherwise the best bus bandwidth any collective reached (an empirical peak).
double link_bandwidth(const SystemResults& s, const std::vector<CollectiveRun>& rows,
                      std::string* source) {
  if (const auto spec = recorded_network(s.system)) {
    double rate = spec->rate == "none" ? 0 : parse_rate(spec->rate);
    if (spec->bottleneck_host >= 0) rate = std::min(rate, parse_rate(spec->bottleneck_rate));
    if (rate > 0) {
      *source = fmt::format("the emulated links' {} Mbit/s", rate / 1e6);
      return rate / 8;
    }
  }
  double best = 0;
  for (const auto& r : rows) best = std::max(best, r.busbw);
  *source = fmt::format("the best measured bus bandwidth, {} GB/s", short_number(best / 1e9));
  return best;
}

// Which collective reached the highest bus bandwidth at `size`, over the sweeps that measured
// each (a repetition of the matrix sweeps it again), and whether that stands out of the noise:
// the best one's slowest sweep against the next one's fastest. One sweep has no spread, so
// with one there is nothing to judge it by, and the sentence says so.
std::string highest_busbw_sentence(const std::vector<CollectiveRun>& rows, int64_t size,
                                   const std::string& size_text) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> sweeps;  // op, backend
  for (const auto& r : rows) {
    if (r.bytes == size && r.model_case.empty()) sweeps[{r.op, r.backend}].push_back(r.busbw);
  }
  std::vector<std::tuple<double, std::string, const std::vector<double>*>> ranked;
  ranked.reserve(sweeps.size());
  for (const auto& [key, busbw] : sweeps) {
    ranked.emplace_back(summarize(busbw).median, fmt::format("{}'s over {}", key.first, key.second),
                        &busbw);
  }
  if (ranked.empty()) return "";
  std::sort(ranked.begin(), ranked.end(),
            [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  const auto& [best, best_name, best_sweeps] = ranked[0];
  std::string text = fmt::format("At {} the highest bus bandwidth was {}: {} GB/s", size_text,
                                 best_name, short_number(best / 1e9));
  if (ranked.size() == 1) return text + ".";
  const auto& [next, next_name, next_sweeps] = ranked[1];
  const std::string against = fmt::format("{} ({} GB/s)", next_name, short_number(next / 1e9));
  if (best_sweeps->size() < 2 || next_sweeps->size() < 2) {
    const bool both = best_sweeps->size() < 2 && next_sweeps->size() < 2;
    return text + fmt::format(", then {}; one sweep of {}: no spread to tell them apart by.",
                              against,
                              both                      ? "each"
                              : best_sweeps->size() < 2 ? "the first"
                                                        : "the second");
  }
  const double best_low = *std::min_element(best_sweeps->begin(), best_sweeps->end());
  const double next_high = *std::max_element(next_sweeps->begin(), next_sweeps->end());
  return text +
         fmt::format(best_low > next_high
                         ? ", above {}, out of the noise (its slowest of {} sweeps above the "
                           "other's fastest of {})."
                         : ", then {}, within the noise (the ranges of their {} and {} sweeps "
                           "overlap).",
                     against, best_sweeps->size(), next_sweeps->size());
}

}  // namespace

FigureData collectives(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  if (s.collectives.empty()) return f;
  int ranks = 0;
  for (const auto& r : s.collectives) ranks = std::max(ranks, r.ranks);
  // The lossy methods' hooks are swept for the model (figure 19), not collectives: what they
  // move is their own, and their bus bandwidth compares with nothing here.
  std::vector<CollectiveRun> rows;
  bool hooks = false;
  for (const auto& r : s.collectives) {
    const bool hook = ends_with(r.op, "_hook");
    hooks = hooks || hook;
    if (r.ranks == ranks && !hook) rows.push_back(r);
  }
  if (rows.empty()) return f;
  std::string source;
  double bandwidth = link_bandwidth(s, rows, &source);
  // alpha: half the smallest allreduce's time per step of the ring (2(n-1) steps).
  double alpha = std::numeric_limits<double>::infinity();
  for (const auto& r : rows) {
    if (r.op == "allreduce" && r.model_case.empty())
      alpha = std::min(alpha, r.time_s / (2.0 * (ranks - 1)));
  }
  if (!std::isfinite(alpha) || ranks < 2) alpha = 0;
  auto ring_bound = [&](int64_t bytes) {  // seconds, for an allreduce of this size
    return 2.0 * (ranks - 1) * alpha +
           2.0 * (ranks - 1) / ranks * static_cast<double>(bytes) / bandwidth;
  };
  // One point per operation, backend and size: the mean over the sweep's repetitions, in the
  // order first swept, so that each line runs once from the smallest size to the largest.
  struct Point {
    int count = 0;
    double time_s = 0, algbw = 0, busbw = 0;
  };
  std::vector<std::tuple<std::string, std::string, int64_t>> order;
  std::map<std::tuple<std::string, std::string, int64_t>, Point> points;
  std::vector<std::string> ops;
  for (const auto& r : rows) {
    if (!r.model_case.empty()) continue;
    const auto key = std::make_tuple(r.op, r.backend, r.bytes);
    Point& p = points[key];
    if (p.count++ == 0) order.push_back(key);
    p.time_s += r.time_s, p.algbw += r.algbw, p.busbw += r.busbw;
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
  }
  Table sweep;
  sweep.columns = {"op", "backend", "bytes", "time_us", "algbw_GBps", "busbw_GBps", "bound_us"};
  for (const auto& key : order) {
    const auto& [op, backend, bytes] = key;
    const Point& p = points[key];
    const double n = p.count;
    sweep.rows.push_back(
        {op, backend, bytes, p.time_s / n * 1e6, p.algbw / n / 1e9, p.busbw / n / 1e9,
         op == "allreduce" ? nlohmann::json(ring_bound(bytes) * 1e6) : nlohmann::json("")});
  }
  f.extra.push_back({"sweep", sweep});
  f.series = fmt::format("{}", fmt::join(ops, " "));
  for (const char* b : {"mpi", "gloo"}) {
    for (const auto& r : rows) {
      if (r.backend == b) {
        f.backends += f.backends.empty() ? b : std::string(" ") + b;
        break;
      }
    }
  }
  // The table's size: 4 MiB, or where the sweep stopped short of it, the largest it swept.
  int64_t size = 0;
  for (const auto& r : rows) {
    if (r.model_case.empty()) size = std::max(size, r.bytes);
  }
  if (std::any_of(rows.begin(), rows.end(), [](const CollectiveRun& r) {
        return r.model_case.empty() && r.bytes == kFourMiB;
      })) {
    size = kFourMiB;
  }
  const std::string size_text = binary_size_text(size);
  f.table.columns = {"op", "backend", "size", "time_ms", "busbw_GBps", "vs_bound"};
  for (const auto& r : rows) {
    const bool vgg11 = r.model_case == "vgg11";
    if (!vgg11 && (r.bytes != size || !r.model_case.empty())) continue;
    double bound = ring_bound(r.bytes);
    f.table.rows.push_back(
        {r.op, r.backend, vgg11 ? "VGG-11 36.9 MB" : size_text, r.time_s * 1e3, r.busbw / 1e9,
         r.op == "allreduce" || r.op == "ring_allreduce" ? nlohmann::json(r.time_s / bound)
                                                         : nlohmann::json("")});
  }
  const bool bounded = std::any_of(rows.begin(), rows.end(), [](const CollectiveRun& r) {
    return r.op == "allreduce" && r.model_case.empty();
  });
  f.caption = fmt::format(
      "Collectives on {} ranks: time per operation (slowest rank) and bus bandwidth vs message "
      "size{}",
      ranks,
      bounded ? fmt::format("; dashed: the alpha-beta bound of a ring allreduce, alpha = {} us "
                            "(from the smallest allreduce), bandwidth from {}",
                            short_number(alpha * 1e6), source)
              : "");
  if (const std::string highest = highest_busbw_sentence(rows, size, size_text); !highest.empty()) {
    f.sentences.push_back(highest);
  }
  for (const auto& e : link_efficiency(s)) {
    f.sentences.push_back("Link efficiency: " + link_efficiency_text(e) + ".");
  }
  for (const auto& backend : {"mpi", "gloo"}) {
    const CollectiveRun *native = nullptr, *ring = nullptr;
    for (const auto& r : rows) {
      if (r.backend != backend || r.model_case != "vgg11") continue;
      if (r.op == "allreduce") native = &r;
      if (r.op == "ring_allreduce") ring = &r;
    }
    if (native != nullptr && ring != nullptr) {
      f.sentences.push_back(fmt::format(
          "For VGG-11's gradient over {}, dtbench's ring_allreduce took {} ms and the backend's "
          "allreduce {} ms ({}x).",
          backend, short_number(ring->time_s * 1e3), short_number(native->time_s * 1e3),
          short_number(ring->time_s / native->time_s)));
    }
  }
  if (hooks) {
    f.sentences.push_back(
        "The lossy methods' hooks swept here (fp16_hook, topk_hook, powersgd_hook) are not "
        "drawn: they are what the model charges each of those methods' buckets (figure 19).");
  }
  return f;
}

}  // namespace dtbench::report
