// Shared pieces of the figure builders (figures.h, namespace report).
#include <cmath>
#include <map>

#include "report/figures.h"
#include "train/stats.h"

namespace dtbench::report {

std::vector<const TrainRun*> runs_of(const SystemResults& s, const std::string& group,
                                     std::string* model) {
  std::map<std::string, int> count;  // model -> runs in the group
  for (const auto& r : s.runs) {
    if (r.group == group) ++count[r.record.config.model];
  }
  std::string chosen;  // the model with the most runs; VGG-11 (the course's) on a tie
  for (const auto& [name, n] : count) {
    if (chosen.empty() || n > count[chosen] || (n == count[chosen] && name == "vgg11"))
      chosen = name;
  }
  if (model != nullptr) *model = chosen;
  std::vector<const TrainRun*> out;
  for (const auto& r : s.runs) {
    if (r.group == group && r.record.config.model == chosen) out.push_back(&r);
  }
  return out;
}

std::vector<const TrainRun*> runs_with(const SystemResults& s, const std::string& group,
                                       const std::string& model) {
  std::vector<const TrainRun*> out;
  for (const auto& r : s.runs) {
    if (r.group == group && r.record.config.model == model) out.push_back(&r);
  }
  return out;
}

std::string param(const TrainRun& r, const std::string& key) {
  const TrainConfig& c = r.record.config;
  if (key == "sync") return c.sync;
  if (key == "backend") return c.backend;
  if (key == "mode") {
    if (!c.mode.empty()) return c.mode;
    return c.sync == "bucketed" || c.sync == "c10d_ddp" ? "overlap" : "blocking";
  }
  if (key == "aggregate") return c.aggregate;
  if (r.params.contains(key)) {
    const auto& v = r.params[key];
    return v.is_string() ? v.get<std::string>() : v.dump();
  }
  return "";
}

std::string method_label(const TrainRun& r) {
  std::string backend = param(r, "backend");
  return backend == "mpi" || backend == "none" ? param(r, "sync")
                                               : param(r, "sync") + "/" + backend;
}

std::vector<double> timed(const TrainRun& r) {
  return window(r.record.iterations.total_s, kTimedFirst, kTimedLast);
}

double phase_mean(const TrainRun& r, size_t phase) {
  auto values = window(r.record.iterations.phase_s[phase], kTimedFirst, kTimedLast);
  return summarize(values).mean;
}

double final_accuracy(const TrainRun& r) {
  const auto& e = r.record.evaluations;
  return e.empty() ? std::nan("") : e.back().accuracy;
}

void add_loss_curve(Table& curves, const std::string& label, const TrainRun& r) {
  const auto& loss = r.record.iterations.loss;
  for (size_t i = 0; i < loss.size(); ++i) {
    curves.rows.push_back({label, static_cast<int64_t>(i), loss[i]});
  }
}

}  // namespace dtbench::report
