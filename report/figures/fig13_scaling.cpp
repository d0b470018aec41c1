// Figure 13, "Scaling with the number of ranks": its table, caption and sentences,
// drawn by fig13_scaling.gp.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

namespace {

// Whether every host of the run was this machine: localhost, or the emulated cluster's
// namespaces (system.json).
bool on_one_machine(const SystemResults& s) {
  if (s.system.value("emulated_cluster", false)) return true;
  const auto hosts = s.system.value("hosts", nlohmann::json::array());
  if (!hosts.is_array() || hosts.empty()) return false;
  for (const auto& h : hosts) {
    const std::string name = h.value("name", "");
    if (name != "localhost" && name != "127.0.0.1") return false;
  }
  return true;
}

}  // namespace

FigureData scaling(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto small = runs_of(s, "scaling", &model);
  f.table.columns = {"method", "ranks", "mean_s", "speedup", "efficiency"};
  const TrainRun* single = nullptr;
  for (const TrainRun* r : small) {
    if (r->ranks == 1) single = r;
  }
  if (single == nullptr) return f;
  double t1 = summarize(timed(*single)).mean;
  f.table.rows.push_back({"one process", 1, t1, 1.0, 1.0});
  std::vector<const TrainRun*> all = small;
  for (const TrainRun* r : runs_with(s, "sync_methods", model)) all.push_back(r);
  std::map<std::string, int> methods;
  for (const TrainRun* r : small) {
    if (r->ranks > 1) methods[method_label(*r)] = 1;
  }
  std::vector<std::string> series;
  for (const auto& [method, unused] : methods) {
    series.push_back(method);
    for (const TrainRun* r : all) {
      if (r->ranks == 1 || method_label(*r) != method) continue;
      double t = summarize(timed(*r)).mean;
      f.table.rows.push_back({method, r->ranks, t, t1 / t, t1 / t / r->ranks});
    }
  }
  const size_t method = f.table.column("method"), ranks = f.table.column("ranks");
  std::sort(f.table.rows.begin() + 1, f.table.rows.end(), [&](const auto& a, const auto& b) {
    return std::make_pair(a[method].template get<std::string>(), a[ranks].template get<int>()) <
           std::make_pair(b[method].template get<std::string>(), b[ranks].template get<int>());
  });
  f.series = fmt::format("{}", fmt::join(series, " "));
  f.caption = fmt::format(
      "Speedup T(1) / T(n) of an iteration of the same global batch ({}) on "
      "n ranks; efficiency = speedup / n; {}",
      single->record.config.global_batch, model);
  const size_t last = f.table.rows.size() - 1;
  f.sentences.push_back(fmt::format(
      "With {} on {} ranks an iteration took {} s against {} s in one process: a speedup of "
      "{} (efficiency {:.0f}%).",
      f.table.text(last, "method"), static_cast<int>(f.table.number(last, "ranks")),
      short_number(f.table.number(last, "mean_s")), short_number(t1),
      short_number(f.table.number(last, "speedup")), 100 * f.table.number(last, "efficiency")));
  // Only where every rank ran on this one machine (localhost, or the emulated cluster's
  // namespaces): on a real cluster each host brings its own cores.
  if (on_one_machine(s)) {
    f.sentences.push_back(
        fmt::format("These ranks all ran on one machine ({} cores): ranks that share the same "
                    "cores cannot add compute.",
                    s.system.value("cores", 0)));
  }
  return f;
}

}  // namespace dtbench::report
