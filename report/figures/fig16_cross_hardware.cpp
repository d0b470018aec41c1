// Figure 16, "Across systems": its table, caption and sentences, drawn by fig16_cross_hardware.gp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/software_stack.h"
#include "report/figures/common.h"
#include "report/read/ranking.h"
#include "stats/stats.h"

namespace dtbench::report {
namespace {

// Kendall's tau-b between S1's order of the methods both ran and the other's, pairs within
// the noise on either counted as tied: "; Kendall's tau-b over the 6 methods both ran 0.93".
std::string tau_b_text(const std::map<std::string, Repeated>& reference,
                       const std::map<std::string, Repeated>& other) {
  std::vector<const Repeated*> a, b;
  for (const auto& [measure, r] : reference) {
    const auto it = other.find(measure);
    if (it == other.end()) continue;
    a.push_back(&r);
    b.push_back(&it->second);
  }
  if (a.size() < 2) return "";
  std::vector<double> first, second;
  for (size_t i = 0; i < a.size(); ++i) {
    first.push_back(a[i]->median_s);
    second.push_back(b[i]->median_s);
  }
  const RankAgreement agreement = rank_agreement(first, second, [&](size_t i, size_t j) {
    return !stands_out(*a[i], *a[j]) || !stands_out(*b[i], *b[j]);
  });
  if (std::isnan(agreement.tau_b)) return "";
  return fmt::format("; Kendall's tau-b over the {} methods both ran {:.2f}", a.size(),
                     agreement.tau_b);
}

// Whether S1 and another system rank the methods alike: of the pairs of methods both ran whose
// order stands out of the noise on both (the intervals do not overlap), how many keep it, and
// which swap.
std::string ranking_agreement(const std::map<std::string, Repeated>& reference,
                              const std::map<std::string, Repeated>& other,
                              const std::string& name) {
  int pairs = 0, within_noise = 0;
  std::vector<std::string> swapped;
  for (auto a = reference.begin(); a != reference.end(); ++a) {
    for (auto b = std::next(a); b != reference.end(); ++b) {
      const auto oa = other.find(a->first), ob = other.find(b->first);
      if (oa == other.end() || ob == other.end()) continue;
      if (!stands_out(a->second, b->second) || !stands_out(oa->second, ob->second)) {
        ++within_noise;
        continue;
      }
      ++pairs;
      const bool before = a->second.median_s < b->second.median_s;
      if (before != (oa->second.median_s < ob->second.median_s)) {
        swapped.push_back(fmt::format("{} and {}", a->first, b->first));
      }
    }
  }
  if (pairs == 0) {
    return fmt::format(
        "No pair of methods is ordered out of the noise on both S1 and {} ({} pairs within "
        "it): their rankings are not compared.",
        name, within_noise);
  }
  const std::string tau = tau_b_text(reference, other);
  if (swapped.empty()) {
    return fmt::format(
        "{} ranks the methods as S1 does: all {} pairs ordered out of the noise on both keep "
        "their order ({} pairs within the noise on one or both){}.",
        name, pairs, within_noise, tau);
  }
  return fmt::format(
      "{} ranks the methods differently from S1: of {} pairs ordered out of the noise on both, "
      "{} swap ({}); {} pairs are within the noise on one or both{}.",
      name, pairs, swapped.size(), fmt::join(swapped, "; "), within_noise, tau);
}

// The model every system ran in sync_methods (of several, the one with the most runs in all;
// VGG-11 on a tie), so that like is compared with like; "" when there is none.
std::string common_model(const std::vector<const SystemResults*>& systems) {
  std::map<std::string, int> runs, in;
  for (const SystemResults* s : systems) {
    std::set<std::string> here;
    for (const auto& r : s->runs) {
      if (r.group != "sync_methods") continue;
      ++runs[r.record.config.model];
      here.insert(r.record.config.model);
    }
    for (const auto& m : here) ++in[m];
  }
  std::string chosen;
  for (const auto& [model, n] : in) {
    if (n != static_cast<int>(systems.size())) continue;
    if (chosen.empty() || runs[model] > runs[chosen] ||
        (runs[model] == runs[chosen] && model == "vgg11"))
      chosen = model;
  }
  return chosen;
}

// What the ratios of another system to S1 measure: the same machine on another stack, or
// another machine (on the same stack or another); and oneDNN's kernels where the runs' records
// say they differ (ONEDNN_MAX_CPU_ISA held one system's lower).
std::string what_differs(const SystemResults& s1, const SystemResults& sk,
                         const std::string& name) {
  auto machine = [](const nlohmann::json& s) {
    return fmt::format("{}, {} x{}", s.value("hostname", "?"), s.value("cpu_model", "?"),
                       s.value("cores", 0));
  };
  const std::string stack = stack_label(software_stack(sk.system));
  const std::string reference_stack = stack_label(software_stack(s1.system));
  const std::string kernels = cpu_kernels_of(sk), reference_kernels = cpu_kernels_of(s1);
  const std::string kernels_differ = kernels == reference_kernels
                                         ? ""
                                         : fmt::format("oneDNN's kernels ({}'s runs: {}; S1's: {})",
                                                       name, kernels, reference_kernels);
  if (machine(s1.system) == machine(sk.system)) {
    if (stack == reference_stack) {
      if (kernels_differ.empty()) return "";
      return fmt::format("{} has S1's hardware ({}) and stack: its ratios measure {}.", name,
                         machine(sk.system), kernels_differ);
    }
    return fmt::format(
        "{} has S1's hardware ({}) and another software stack, {} against S1's {}: its ratios "
        "measure the stack{}.",
        name, machine(sk.system), stack, reference_stack,
        kernels_differ.empty() ? "" : " and " + kernels_differ);
  }
  return fmt::format("{} is another machine ({}; {}) than S1 ({}; {}){}.", name, machine(sk.system),
                     stack, machine(s1.system), reference_stack,
                     kernels_differ.empty() ? "" : ", with other " + kernels_differ);
}

}  // namespace

FigureData cross_hardware(const SystemResults&, const std::vector<SystemResults>& all) {
  FigureData f;
  f.table.columns = {"system", "measure", "mean", "ratio_to_first", "rank"};
  Table plot;
  plot.columns = {"label", "index", "system", "mean_s"};
  std::vector<const SystemResults*> with_data;
  for (const auto& s : all) {
    if (!runs_of(s, "sync_methods").empty()) with_data.push_back(&s);
  }
  if (with_data.size() < 2) return f;
  const std::string common = common_model(with_data);
  std::map<std::string, double> first;
  std::vector<std::string> methods, systems;
  // Per system, each measure's time over its repetitions, for the ranking (stands_out).
  std::vector<std::map<std::string, Repeated>> times(with_data.size());
  for (size_t k = 0; k < with_data.size(); ++k) {
    std::string model = common;
    systems.push_back(fmt::format("S{}", k + 1));
    const auto runs = common.empty() ? runs_of(*with_data[k], "sync_methods", &model)
                                     : runs_with(*with_data[k], "sync_methods", common);
    std::vector<std::pair<double, std::string>> order;
    for (const TrainRun* r : runs) {
      const std::string measure = fmt::format("{} {} s/iter", model, method_label(*r));
      times[k][measure] = repeated_time(*with_data[k], *r);
      order.emplace_back(summarize(timed(*r)).mean, measure);
    }
    std::sort(order.begin(), order.end());
    for (const TrainRun* r : runs) {
      std::string measure = fmt::format("{} {} s/iter", model, method_label(*r));
      double mean = summarize(timed(*r)).mean;
      if (k == 0) first[measure] = mean;
      const auto at_rank = std::find_if(order.begin(), order.end(),
                                        [&](const auto& o) { return o.second == measure; });
      f.table.rows.push_back(
          {systems.back(), measure, mean,
           first.count(measure) ? nlohmann::json(mean / first[measure]) : nlohmann::json(""),
           static_cast<int64_t>(at_rank - order.begin()) + 1});
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
  for (size_t k = 1; k < times.size(); ++k) {
    const std::string differs = what_differs(*with_data[0], *with_data[k], systems[k]);
    if (!differs.empty()) f.sentences.push_back(differs);
    f.sentences.push_back(ranking_agreement(times[0], times[k], systems[k]));
  }
  return f;
}

}  // namespace dtbench::report
