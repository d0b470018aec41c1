// Figure 16, "Across systems": its table, caption and sentences, drawn by fig16_cross_hardware.gp.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/figures/common.h"
#include "train/stats.h"

namespace dtbench::report {

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
