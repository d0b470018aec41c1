// Figure 12, "A bottleneck node": its table, caption and sentences, drawn by fig12_bottleneck.gp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "common/network_spec.h"
#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

namespace {

double number_of(const std::string& text) {
  return text.empty() ? std::nan("") : std::stod(text);
}

// The emulated cluster's own link rate ("1gbit"), "" when the system is not emulated.
std::string cluster_rate(const SystemResults& s) {
  const auto spec = recorded_network(s.system);
  return !spec || spec->rate == "none" ? "" : spec->rate;
}

}  // namespace

FigureData bottleneck(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  f.table.columns = {"severity",   "kind",        "method",  "mean_s",
                     "ci95_low_s", "ci95_high_s", "slowdown"};
  auto compute = runs_of(s, "bottleneck_compute", &model);
  std::string link_model;
  auto link = runs_of(s, "bottleneck_link", &link_model);
  std::map<std::string, double> base;  // model method -> the sync_methods run's mean
  for (const auto& r : s.runs) {
    if (r.group != "sync_methods") continue;
    base[r.record.config.model + " " + method_label(r)] = summarize(timed(r)).mean;
  }
  std::vector<std::string> series;
  auto add = [&](const TrainRun& r, double severity, const std::string& kind) {
    Summary t = summarize(timed(r));
    std::string key = r.record.config.model + " " + method_label(r);
    double b = base.count(key) ? base[key] : std::nan("");
    f.table.rows.push_back(
        {severity, kind, method_label(r), t.mean, t.ci95_low, t.ci95_high, t.mean / b});
    std::string name = kind + ":" + method_label(r);
    if (std::find(series.begin(), series.end(), name) == series.end()) series.push_back(name);
  };
  for (const TrainRun* r : compute) add(*r, number_of(param(*r, "slow_ms")), "compute_ms");
  // Severity 0: the same method without a bottleneck (its sync_methods run), when measured.
  for (const auto* group : {&compute, &link}) {
    std::set<std::string> done;
    for (const TrainRun* r : *group) {
      if (!done.insert(method_label(*r)).second) continue;
      for (const TrainRun* base_run : runs_with(s, "sync_methods", r->record.config.model)) {
        if (method_label(*base_run) != method_label(*r)) continue;
        bool is_link = group == &link;
        add(*base_run, is_link ? parse_rate_mbit(cluster_rate(s)) : 0,
            is_link ? "link_mbit" : "compute_ms");
      }
    }
  }
  for (const TrainRun* r : link) add(*r, parse_rate_mbit(r->bottleneck_rate), "link_mbit");
  if (f.table.rows.empty()) return f;
  const Table& t = f.table;
  const size_t kind = t.column("kind"), method = t.column("method"),
               severity = t.column("severity");
  std::stable_sort(f.table.rows.begin(), f.table.rows.end(), [&](const auto& a, const auto& b) {
    return std::make_tuple(a[kind].template get<std::string>(),
                           a[method].template get<std::string>(),
                           a[severity].template get<double>()) <
           std::make_tuple(b[kind].template get<std::string>(),
                           b[method].template get<std::string>(),
                           b[severity].template get<double>());
  });
  f.series = fmt::format("{}", fmt::join(series, " "));
  // Who was slow, as the matrix said: the slow ranks and the shaped hosts of these runs.
  std::set<int> slow_ranks, slow_hosts;
  for (const TrainRun* r : compute) slow_ranks.insert(r->record.config.slow_rank);
  for (const TrainRun* r : link) slow_hosts.insert(r->bottleneck_host);
  auto who = [](const char* what, const std::set<int>& ids) {
    return ids.empty() ? fmt::format("a {}", what)
                       : fmt::format("{} {}", what, fmt::join(ids, ", "));
  };
  f.labels = {{"slow_rank", who("rank", slow_ranks)}, {"slow_host", who("host", slow_hosts)}};
  f.caption = fmt::format(
      "One slow node: {} doing extra work each iteration (compute, ms), "
      "or {}'s link slowed (link, Mbit/s; emulated cluster only); "
      "slowdown against the same method without it; {}",
      f.labels["slow_rank"], f.labels["slow_host"], model.empty() ? link_model : model);
  for (size_t k = 0; k < t.rows.size(); ++k) {
    const bool is_link = t.text(k, "kind") == "link_mbit";
    const bool baseline =
        t.number(k, "severity") == (is_link ? parse_rate_mbit(cluster_rate(s)) : 0.0);
    if (baseline || std::isnan(t.number(k, "slowdown"))) continue;
    f.sentences.push_back(
        fmt::format("{} with a {} {} bottleneck: {} s per iteration, {}x its time without.",
                    t.text(k, "method"), short_number(t.number(k, "severity")),
                    is_link ? "Mbit/s link" : "ms compute", short_number(t.number(k, "mean_s")),
                    short_number(t.number(k, "slowdown"))));
    if (f.sentences.size() >= 4) break;
  }
  if (link.empty()) {
    f.sentences.push_back(
        "No link bottleneck in these results: it needs the emulated cluster "
        "(make cluster-up, HOSTS=hosts/netns-4).");
  }
  return f;
}

}  // namespace dtbench::report
