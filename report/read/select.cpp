// Run selection (select.h), shared by the figure builders and predict.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "catalogue/methods.h"
#include "report/read/select.h"
#include "stats/stats.h"

namespace dtbench::report {

namespace {

double timed_mean(const TrainRun& r) {
  return summarize(timed(r)).mean;
}

// One run per experiment: of its repetitions, the one whose mean is the (lower) median, so
// that figures built from single runs show a typical repetition, not R copies.
std::vector<const TrainRun*> one_per_experiment(const std::vector<const TrainRun*>& runs) {
  std::vector<const TrainRun*> out;
  std::map<std::string, std::vector<const TrainRun*>> reps;
  for (const TrainRun* r : runs) {
    if (reps[r->name].empty()) out.push_back(r);
    reps[r->name].push_back(r);
  }
  for (auto& chosen : out) {
    std::vector<std::pair<std::pair<double, int>, const TrainRun*>> by_mean;
    for (const TrainRun* r : reps[chosen->name]) {
      by_mean.push_back({{timed_mean(*r), r->repeat}, r});
    }
    std::sort(by_mean.begin(), by_mean.end());
    chosen = by_mean[(by_mean.size() - 1) / 2].second;
  }
  return out;
}

}  // namespace

std::vector<const TrainRun*> repetitions(const SystemResults& s, const TrainRun& run) {
  std::vector<const TrainRun*> out;
  for (const auto& r : s.runs) {
    if (r.name == run.name) out.push_back(&r);
  }
  std::sort(out.begin(), out.end(),
            [](const TrainRun* a, const TrainRun* b) { return a->repeat < b->repeat; });
  return out;
}

std::string workload_of(const TrainRun& r) {
  const TrainConfig& c = r.record.config;
  return fmt::format("{} {} {} {} {} {} {} {} {}", c.model, c.dataset, c.world_size, c.global_batch,
                     c.threads, c.slow_rank, c.slow_ms, c.malloc_setting, r.bottleneck_rate);
}

std::string timing_key(const TrainRun& r) {
  static const std::array<const char*, 8> kNotTiming = {"out",          "eval",       "eval_batch",
                                                        "eval_limit",   "epochs",     "max_iters",
                                                        "log_interval", "train_limit"};
  nlohmann::json key = r.record.config;
  for (const char* field : kNotTiming) key.erase(field);
  return key.dump();
}

std::string noise_key(const TrainRun& r) {
  return workload_of(r) + " " + param(r, "backend");
}

double run_to_run_spread(const SystemResults& s, const TrainRun& run) {
  const std::string noise = noise_key(run);
  std::map<std::string, std::vector<double>> means;  // timing key -> its runs' means
  for (const auto& r : s.runs) {
    if (r.kind != run.kind || noise_key(r) != noise) continue;
    if (const double mean = timed_mean(r); mean > 0) means[timing_key(r)].push_back(mean);
  }
  double spread = 0;
  for (const auto& [key, these] : means) {
    const auto [fastest, slowest] = std::minmax_element(these.begin(), these.end());
    spread = std::max(spread, *slowest / *fastest - 1);
  }
  return spread;
}

Repeated repeated_time(const SystemResults& s, const TrainRun& run) {
  Repeated t;
  std::vector<double> means;
  for (const TrainRun* r : repetitions(s, run)) {
    double mean = timed_mean(*r);
    t.by_round[r->repeat] = mean;
    means.push_back(mean);
    t.noisy += r->conditions.noisy ? 1 : 0;
  }
  Summary spread = summarize(means);
  t.reps = static_cast<int>(means.size());
  t.median_s = spread.median;
  t.min_s = spread.min;
  t.max_s = spread.max;
  Summary within = summarize(timed(run));
  t.ci95_low_s = within.ci95_low;
  t.ci95_high_s = within.ci95_high;
  if (t.reps > 1) {
    t.low_s = t.min_s;
    t.high_s = t.max_s;
    return t;
  }
  // One run is one draw: two are told apart only when further apart than runs of one
  // configuration fell here, half of that spread on each side (in ratio).
  t.run_spread = run_to_run_spread(s, run);
  const double half = std::sqrt(1 + t.run_spread);
  t.low_s = std::min(t.ci95_low_s, t.median_s / half);
  t.high_s = std::max(t.ci95_high_s, t.median_s * half);
  return t;
}

double ratio_within_rounds(const Repeated& a, const Repeated& b) {
  std::vector<double> ratios;
  for (const auto& [round, mean] : a.by_round) {
    auto other = b.by_round.find(round);
    if (other != b.by_round.end() && other->second > 0) ratios.push_back(mean / other->second);
  }
  return ratios.empty() ? std::nan("") : summarize(ratios).median;
}

bool stands_out(const Repeated& a, const Repeated& b) {
  return a.high_s < b.low_s || b.high_s < a.low_s;
}

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
  return runs_with(s, group, chosen);
}

std::vector<const TrainRun*> runs_with(const SystemResults& s, const std::string& group,
                                       const std::string& model) {
  std::vector<const TrainRun*> out;
  for (const auto& r : s.runs) {
    if (r.group == group && r.record.config.model == model) out.push_back(&r);
  }
  return one_per_experiment(out);
}

std::string param(const TrainRun& r, const std::string& key) {
  const TrainConfig& c = r.record.config;
  if (key == "sync") return c.sync;
  if (key == "backend") return c.backend;
  if (key == "mode") return to_string(c.sync_options.mode);
  if (key == "aggregate") return to_string(c.sync_options.aggregate);
  if (r.params.contains(key)) {
    const auto& v = r.params[key];
    return v.is_string() ? v.get<std::string>() : v.dump();
  }
  return "";
}

std::string default_mode(const std::string& sync) {
  for (const auto& spec : sync_methods()) {
    if (spec.name == sync) return to_string(spec.modes.front());
  }
  return "overlap";  // Python DDP: hooks during backward, as bucketed
}

std::string method_with_mode(const TrainRun& r) {
  std::string sync = param(r, "sync"), mode = param(r, "mode");
  return mode == default_mode(sync) ? sync : fmt::format("{} ({})", sync, mode);
}

namespace {

// name, then "/backend" unless the backend is mpi (the default under mpirun) or none.
std::string with_backend(const TrainRun& r, const std::string& name) {
  std::string backend = param(r, "backend");
  return backend == "mpi" || backend == "none" ? name : name + "/" + backend;
}

}  // namespace

std::string engine_label(const TrainRun& r) {
  return with_backend(r, method_with_mode(r));
}

std::string method_label(const TrainRun& r) {
  return with_backend(r, param(r, "sync"));
}

std::vector<double> timed(const TrainRun& r) {
  return window(r.record.iterations.total_s, kTimedFirst, kTimedLast);
}

double phase_mean(const TrainRun& r, size_t phase) {
  auto values = window(r.record.iterations.phase_s[phase], kTimedFirst, kTimedLast);
  return summarize(values).mean;
}

std::string evaluated_label(const std::vector<const TrainRun*>& runs) {
  const bool any = std::any_of(runs.begin(), runs.end(),
                               [](const TrainRun* r) { return !r->record.evaluations.empty(); });
  return any ? "1" : "0";
}

double mean_of_repetitions(const std::vector<const TrainRun*>& reps) {
  if (reps.empty()) return std::nan("");
  double sum = 0;
  for (const TrainRun* r : reps) sum += summarize(timed(*r)).mean;
  return sum / static_cast<double>(reps.size());
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
