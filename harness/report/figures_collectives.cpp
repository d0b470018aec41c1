// The collectives sweep (latency and bus bandwidth vs message size, with the alpha-beta
// bound) and the comparison across systems.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "cluster.h"
#include "report/figures.h"
#include "report/figures_internal.h"
#include "train/stats.h"

namespace dtbench::report {
namespace {

constexpr int64_t kFourMiB = 4 << 20;

// The link's bandwidth in bytes/s: the shaped rate of an emulated cluster (its slowest link),
// otherwise the best bus bandwidth any collective reached (an empirical peak).
double link_bandwidth(const SystemResults& s, const std::vector<CollectiveRun>& rows,
                      std::string* source) {
  const auto& net = s.system.value("network", nlohmann::json());
  if (net.is_object() && net.contains("spec")) {
    const auto& spec = net["spec"];
    double rate =
        spec.value("rate", "none") == "none" ? 0 : parse_rate(spec.value("rate", "1gbit"));
    if (spec.value("bottleneck_host", -1) >= 0) {
      rate = std::min(rate, parse_rate(spec.value("bottleneck_rate", "100mbit")));
    }
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

}  // namespace

double parse_rate_mbit(const std::string& rate) {
  return rate.empty() ? std::nan("") : parse_rate(rate) / 1e6;
}

FigureData collectives(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  if (s.collectives.empty()) return f;
  int ranks = 0;
  for (const auto& r : s.collectives) ranks = std::max(ranks, r.ranks);
  std::vector<CollectiveRun> rows;
  for (const auto& r : s.collectives) {
    if (r.ranks == ranks) rows.push_back(r);
  }
  std::string source;
  double bandwidth = link_bandwidth(s, rows, &source);
  // alpha: half the smallest allreduce's time per step of the ring (2(n-1) steps).
  double alpha = std::numeric_limits<double>::infinity();
  for (const auto& r : rows) {
    if (r.op == "allreduce" && !r.vgg11_case)
      alpha = std::min(alpha, r.time_s / (2.0 * (ranks - 1)));
  }
  if (!std::isfinite(alpha) || ranks < 2) alpha = 0;
  auto ring_bound = [&](int64_t bytes) {  // seconds, for an allreduce of this size
    return 2.0 * (ranks - 1) * alpha +
           2.0 * (ranks - 1) / ranks * static_cast<double>(bytes) / bandwidth;
  };
  Table sweep;
  sweep.columns = {"op", "backend", "bytes", "time_us", "algbw_GBps", "busbw_GBps", "bound_us"};
  std::vector<std::string> ops;
  for (const auto& r : rows) {
    if (r.vgg11_case) continue;
    double bound = ring_bound(r.bytes);
    sweep.rows.push_back({r.op, r.backend, r.bytes, r.time_s * 1e6, r.algbw / 1e9, r.busbw / 1e9,
                          r.op == "allreduce" ? nlohmann::json(bound * 1e6) : nlohmann::json("")});
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
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
  f.table.columns = {"op", "backend", "size", "time_ms", "busbw_GBps", "vs_bound"};
  for (const auto& r : rows) {
    if (r.bytes != kFourMiB && !r.vgg11_case) continue;
    double bound = ring_bound(r.bytes);
    f.table.rows.push_back(
        {r.op, r.backend, r.vgg11_case ? "VGG-11 36.9 MB" : "4 MiB", r.time_s * 1e3, r.busbw / 1e9,
         r.op == "allreduce" || r.op == "ring_allreduce" ? nlohmann::json(r.time_s / bound)
                                                         : nlohmann::json("")});
  }
  f.caption = fmt::format(
      "Collectives on {} ranks: time per operation (slowest rank) and bus "
      "bandwidth vs message size; dashed: the alpha-beta bound of a ring "
      "allreduce, alpha = {} us (from the smallest allreduce), bandwidth from {}",
      ranks, short_number(alpha * 1e6), source);
  const CollectiveRun* best = nullptr;
  for (const auto& r : rows) {
    if (r.bytes == kFourMiB && (best == nullptr || r.busbw > best->busbw)) best = &r;
  }
  if (best != nullptr) {
    f.sentences.push_back(
        fmt::format("At 4 MiB the highest bus bandwidth was {}'s over {}: {} GB/s.", best->op,
                    best->backend, short_number(best->busbw / 1e9)));
  }
  for (const auto& backend : {"mpi", "gloo"}) {
    const CollectiveRun *native = nullptr, *ring = nullptr;
    for (const auto& r : rows) {
      if (r.backend != backend || !r.vgg11_case) continue;
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
  return f;
}

FigureData cross_hardware(const SystemResults&, const std::vector<SystemResults>& all) {
  FigureData f;
  f.table.columns = {"system", "measure", "mean", "ratio_to_first"};
  Table plot;
  plot.columns = {"label", "index", "system", "mean_s"};
  std::vector<const SystemResults*> with_data;
  for (const auto& s : all) {
    if (!runs_of(s, "sync_methods").empty()) with_data.push_back(&s);
  }
  if (with_data.size() < 2) return f;
  std::map<std::string, double> first;
  std::vector<std::string> methods, systems;
  for (size_t k = 0; k < with_data.size(); ++k) {
    std::string model;
    systems.push_back(fmt::format("S{}", k + 1));
    for (const TrainRun* r : runs_of(*with_data[k], "sync_methods", &model)) {
      std::string measure = fmt::format("{} {} s/iter", model, method_label(*r));
      double mean = summarize(timed(*r)).mean;
      if (k == 0) first[measure] = mean;
      f.table.rows.push_back(
          {systems.back(), measure, mean,
           first.count(measure) ? nlohmann::json(mean / first[measure]) : nlohmann::json("")});
      if (std::find(methods.begin(), methods.end(), measure) == methods.end())
        methods.push_back(measure);
      auto at = std::find(methods.begin(), methods.end(), measure) - methods.begin();
      plot.rows.push_back(
          {method_label(*r), static_cast<int64_t>(at), static_cast<int64_t>(k), mean});
    }
  }
  f.extra.push_back({"plot", plot});
  f.caption = fmt::format(
      "Mean iteration time per method on each system ({}; S1 is the "
      "reference of the ratios)",
      fmt::join(systems, ", "));
  std::vector<double> ratios;
  const size_t system = f.table.column("system"), ratio = f.table.column("ratio_to_first");
  for (const auto& row : f.table.rows) {
    if (row[system] != "S1" && row[ratio].is_number()) ratios.push_back(row[ratio].get<double>());
  }
  if (!ratios.empty()) {
    Summary r = summarize(ratios);
    f.sentences.push_back(
        fmt::format("Against S1, the other system's iteration times were {}x to "
                    "{}x (median {}x) over {} common measurements.",
                    short_number(r.min), short_number(r.max), short_number(r.median), r.n));
  }
  return f;
}

}  // namespace dtbench::report
