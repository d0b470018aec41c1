#include "report/predict/p95.h"

#include <cmath>
#include <string>

#include "report/read/select.h"
#include "stats/stats.h"

namespace dtbench {
namespace {

// The workload and backend of `run` on `ranks` ranks (0: its own).
std::string key_on(const TrainRun& run, int ranks) {
  if (ranks <= 0) return report::noise_key(run);
  TrainRun shell;
  shell.record.config = run.record.config;
  shell.record.config.world_size = ranks;
  shell.bottleneck_rate = run.bottleneck_rate;
  return report::noise_key(shell);
}

}  // namespace

int p95_from_other_methods(std::vector<PredictedExperiment>& rows,
                           const std::vector<PredictedExperiment>& measured, int ranks) {
  // Every ratio is read before any prediction changes (rows may be `measured` itself).
  std::vector<double> ratio(rows.size(), NAN);
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string key = key_on(*rows[i].run, ranks);
    std::vector<double> others;
    for (const auto& other : measured) {
      if (other.label == rows[i].label || report::noise_key(*other.run) != key) continue;
      if (!(other.measured_p95_s > 0) || !(other.measured_s > 0)) continue;
      others.push_back(other.measured_p95_s / other.measured_s);
    }
    if (!others.empty()) ratio[i] = percentile(others, 50);
  }
  int without = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (std::isnan(ratio[i])) {
      ++without;
      continue;
    }
    rows[i].predicted_p95_s = rows[i].predicted.total_s() * ratio[i];
  }
  return without;
}

}  // namespace dtbench
