#include "report/predict/predict.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include "catalogue/backends.h"
#include "catalogue/methods.h"
#include "record/record.h"
#include "report/predict/extrapolation.h"
#include "report/predict/link_efficiency.h"
#include "report/predict/p95.h"
#include "report/predict/pair_sweeps.h"
#include "report/predict/rested_sweeps.h"
#include "report/read/select.h"
#include "report/traces/run_trace.h"
#include "stats/stats.h"

namespace dtbench {
namespace {

using model::Phases;

std::array<double*, kPhaseCount> phases_of(Phases& p) {
  return {&p.data_s, &p.forward_s, &p.backward_s, &p.sync_s, &p.optimizer_s};
}

std::array<double, kPhaseCount> values_of(const Phases& p) {
  return {p.data_s, p.forward_s, p.backward_s, p.sync_s, p.optimizer_s};
}

// The phase whose prediction is furthest from the measurement.
size_t worst_index(const Phases& measured, const Phases& predicted) {
  const auto m = values_of(measured), p = values_of(predicted);
  size_t worst = 0;
  for (size_t i = 1; i < kPhaseCount; ++i) {
    if (std::abs(p[i] - m[i]) > std::abs(p[worst] - m[worst])) worst = i;
  }
  return worst;
}

std::string workload_of(const PredictedExperiment& r) {
  return r.run == nullptr ? "" : report::workload_of(*r.run);
}

Phases measured_of(const std::vector<const TrainRun*>& reps) {
  Phases m;
  auto slots = phases_of(m);
  for (size_t i = 0; i < kPhaseCount; ++i) {
    for (const TrainRun* r : reps) *slots[i] += report::phase_mean(*r, i) / reps.size();
  }
  return m;
}

// Rows of one configuration, by that configuration (report::timing_key).
std::map<std::string, std::vector<const PredictedExperiment*>> alike_groups(const Prediction& p) {
  std::map<std::string, std::vector<const PredictedExperiment*>> alike;
  for (const auto& r : p.rows) {
    if (r.run != nullptr) alike[report::timing_key(*r.run)].push_back(&r);
  }
  return alike;
}

// The fastest and the slowest of rows.
AlikeRuns apart(const std::vector<const PredictedExperiment*>& rows) {
  const auto [low, high] = std::minmax_element(
      rows.begin(), rows.end(), [](auto* a, auto* b) { return a->measured_s < b->measured_s; });
  return AlikeRuns{*low, *high, static_cast<int>(rows.size())};
}

}  // namespace

std::string PredictedExperiment::worst_phase() const {
  return kPhaseNames[worst_index(measured, predicted)];
}

double PredictedExperiment::worst_phase_difference_s() const {
  const size_t i = worst_index(measured, predicted);
  return values_of(predicted)[i] - values_of(measured)[i];
}

std::string PredictedExperiment::communication_text() const {
  constexpr double kAsModelled = 0.10;
  if (traced == nullptr || worst_phase() != "sync" || predicted.comm_s <= 0) return "";
  const OverlapShare& overlap = trace_of(*traced).overlap;
  if (overlap.iterations == 0 || overlap.comm_s <= 0) return "";
  const double off = overlap.comm_s / predicted.comm_s - 1;
  std::string text = fmt::format(
      "its traced communication, waits for other ranks included, took {:.3f} s per iteration "
      "and rank against the model's {:.3f} s ({:+.0f}%)",
      overlap.comm_s, predicted.comm_s, 100 * off);
  if (std::abs(off) <= kAsModelled) {
    return text +
           ": the communication took what was modelled; the residual is in what the model "
           "adds to it or takes off (the wait for the slowest rank, the share hidden)";
  }
  return text +
         ": the residual is in the communication and its waits, not in how much of it "
         "was hidden";
}

MethodSetup method_setup(const SystemResults& s, const TrainRun& run, const std::string& label,
                         const std::function<void(const std::string&)>& note) {
  const TrainConfig& c = run.record.config;
  MethodSetup out;
  SentSizes sent;
  const std::vector<int64_t>& buckets = run.record.bucket_bytes;
  if (!buckets.empty()) {
    const auto [smallest, largest] = std::minmax_element(buckets.begin(), buckets.end());
    sent = {static_cast<double>(*smallest), static_cast<double>(*largest)};
  }
  out.link = link_for(s, c.backend, c.world_size, run.bottleneck_rate, sent);
  if (!out.link.found) {
    out.why = fmt::format("{}: not predicted: no {} allreduce sweep on {} ranks and no set rate",
                          label, c.backend, c.world_size);
    return out;
  }
  note(fmt::format("{} link: {}: latency {:.1f} us, rate {:.1f} MB/s", c.backend, out.link.source,
                   out.link.link.latency_s * 1e6, out.link.link.bytes_per_s / 1e6));
  out.method = method_of(run);
  model::Method& method = out.method;
  SweptCost swept = measured_cost_of(s, c, run.bottleneck_rate);
  method.measured_cost = std::move(swept.cost);
  method.rested_up_to_bytes = swept.rested_up_to_bytes;
  method.apart = swept.apart();
  method.compose_apart = links_alike(s);
  if (!swept.noise.empty()) note(swept.noise);
  if (!swept.latency.empty()) note(swept.latency);
  const Engine engine = find_method(c.sync).engine;
  if (is_lossy(c.sync)) {
    const HookEstimate hook = hook_for(s, run);
    method.hook = hook.hook;
    if (!hook.source.empty()) {
      note(hook.source);
    } else if (engine != Engine::local) {
      note(
          fmt::format("{}: what it sends, on the link; the CPU time of compressing (casts, top-k's "
                      "selection, PowerSGD's products) is not modelled without a sweep of its hook",
                      c.sync));
    }
  }
  takes_what_pairs_fitted(s, method, method.ranks, out.link.link, note);
  if (method.in_flight > 1 && !saves_what_a_rest_saved(s, method, method.ranks, note)) {
    note(fmt::format(
        "{} on {} ranks: up to {} of its buckets in flight at once; no rested sweep of {}'s "
        "allreduce here, so its first bucket gets the links' token bucket's credit",
        method.sync, method.ranks, method.in_flight, method.backend));
  }
  if (c.sync_options.mode != SyncMode::blocking) {
    CpuEstimate cpu = comm_cpu_for(s, run);
    method.comm_cpu = cpu.cpu;
    note(cpu.source);
  }
  if (c.sync == "hierarchical") {
    const HostLevels levels = host_levels_for(s, run);
    if (!levels.missing.empty()) {
      out.why = fmt::format("{}: not predicted: {}", label, levels.missing);
      return out;
    }
    method.placement = {levels.per_host, levels.inside};
    if (levels.leaders.found) out.link.link = levels.leaders.link;
    if (!levels.source.empty()) note(fmt::format("{}: {}", label, levels.source));
  }
  out.found = true;
  return out;
}

bool saves_what_a_rest_saved(const SystemResults& s, model::Method& method, int swept_ranks,
                             const std::function<void(const std::string&)>& note) {
  if (method.in_flight <= 1) return false;
  const RestSaving rest = rest_saving(s, method.backend, swept_ranks);
  if (!rest.found()) return false;
  method.rest_saves_s = [rest](double bytes) { return rest.saved_s(bytes); };
  note(fmt::format(
      "{} on {} ranks: its first bucket saves what {:.0f} ms of rest saved {}'s allreduce of its "
      "size on {} ranks (chained less after the rest, {} sizes swept), not the links' token "
      "bucket's credit; up to {} of its buckets in flight at once",
      method.sync, method.ranks, rest.rest_s * 1e3, method.backend, swept_ranks,
      rest.saving.bytes.size(), method.in_flight));
  return true;
}

bool takes_what_pairs_fitted(const SystemResults& s, model::Method& method, int swept_ranks,
                             const model::Link& link,
                             const std::function<void(const std::string&)>& note) {
  if (method.in_flight <= 1) return false;
  const InFlightFit fit = in_flight_fit(s, method.backend, swept_ranks, link);
  if (!fit.found()) return false;
  method.in_flight_shares = fit.shares;
  const auto sizes = [](const std::vector<double>& bytes, const char* what) {
    return bytes.empty() ? std::string()
                         : fmt::format("{}{} sizes, {:.0f} B to {:.0f} B", what, bytes.size(),
                                       bytes.front(), bytes.back());
  };
  const std::string swept = sizes(fit.bytes, "halves: ") +
                            (fit.bytes.empty() || fit.uneven_bytes.empty() ? "" : "; ") +
                            sizes(fit.uneven_bytes, "an eighth and the rest: ");
  note(fmt::format(
      "{} on {} ranks: of a bucket's latency in flight, {:.2f} waits for the other's and {:.2f} "
      "goes before its bytes take the link (1 and 1: one after the other), fitted to {}'s pairs "
      "of nonblocking allreduces launched together on {} ranks ({}) against each alone",
      method.sync, method.ranks, fit.shares.waits, fit.shares.before_bytes, method.backend,
      swept_ranks, swept));
  return true;
}

model::Phases predicted_for_repetitions(const SystemResults& s, const TrainRun& run,
                                        const model::ComputeProfile& compute,
                                        const model::Method& method, const model::Link& link) {
  const std::vector<const TrainRun*> reps = report::repetitions(s, run);
  if (reps.size() < 2 || method.bucket_bytes.empty()) return model::predict(compute, method, link);
  model::Phases mean;
  const auto n = static_cast<double>(reps.size());
  for (const TrainRun* rep : reps) {
    model::Method m = method;
    m.bucket_bytes.assign(rep->record.bucket_bytes.begin(), rep->record.bucket_bytes.end());
    const model::Phases p = model::predict(compute, m, link);
    mean.data_s += p.data_s / n, mean.forward_s += p.forward_s / n;
    mean.backward_s += p.backward_s / n, mean.sync_s += p.sync_s / n;
    mean.optimizer_s += p.optimizer_s / n, mean.comm_s += p.comm_s / n;
    mean.slowest_excess_s += p.slowest_excess_s / n;
  }
  return mean;
}

model::Method method_of(const TrainRun& run) {
  const TrainConfig& c = run.record.config;
  model::Method method;
  method.sync = c.sync;
  method.backend = c.backend;
  method.ranks = static_cast<int>(c.world_size);
  method.options = c.sync_options;
  const size_t timed = report::timed(run).size();
  if (timed > 0) method.last_iteration = kTimedFirst + static_cast<int64_t>(timed) - 1;
  for (int64_t b : run.record.bucket_bytes) method.bucket_bytes.push_back(static_cast<double>(b));
  if (c.backend == "gloo" && find_method(c.sync).engine == Engine::bucketed) {
    method.in_flight = kGlooThreads;
  }
  return method;
}

PredictedExperiment measured_row(const SystemResults& s, const TrainRun& run,
                                 const std::string& label) {
  PredictedExperiment row;
  auto reps = report::repetitions(s, run);
  row.run = reps.empty() ? &run : reps[reps.size() / 2];
  row.traced = &run;
  row.reps = static_cast<int>(reps.size());
  row.label = label;
  row.lossy = is_lossy(run.record.config.sync);
  if (find_method(run.record.config.sync).engine == Engine::bucketed) {
    row.label += fmt::format(" {} MB", run.record.config.sync_options.bucket_mb);
  }
  if (!run.bottleneck_rate.empty()) {
    row.label += fmt::format(" host {} at {}", run.bottleneck_host, run.bottleneck_rate);
  }
  row.measured = measured_of(reps);
  const report::Repeated repeated = report::repeated_time(s, run);
  row.low_s = repeated.low_s;
  row.high_s = repeated.high_s;
  row.measured_s = report::mean_of_repetitions(reps);
  std::vector<double> iterations;
  for (const TrainRun* r : reps) {
    const std::vector<double> t = report::timed(*r);
    iterations.insert(iterations.end(), t.begin(), t.end());
  }
  row.measured_p95_s = iterations.empty() ? 0 : percentile(iterations, 95);
  return row;
}

Prediction predict_system(const SystemResults& s) {
  Prediction out;
  out.label = s.label;
  std::set<std::string> done, noted, swept, on_link, hook_swept;
  std::map<std::tuple<std::string, int64_t, int64_t, std::string>, MeasuredCompute> profiles;
  auto note = [&](const std::string& text) {
    if (noted.insert(text).second) out.notes.push_back(text);
  };
  for (const auto& run : s.runs) {
    if (run.kind != "train" || !done.insert(run.name).second) continue;
    const TrainConfig& c = run.record.config;
    const std::string label = report::engine_label(run);
    if (!model::modelled(c.sync)) {
      note(fmt::format("{}: not modelled yet", label));
      continue;
    }
    if (c.slow_rank >= 0) {
      note(fmt::format("{} with a slowed rank: not modelled", label));
      continue;
    }
    const std::tuple<std::string, int64_t, int64_t, std::string> key{c.model, c.global_batch,
                                                                     c.world_size, c.backend};
    auto known = profiles.find(key);
    if (known == profiles.end()) known = profiles.emplace(key, profile_for(s, run)).first;
    const MeasuredCompute profile = with_overlap_wait(s, c, known->second, run.name);
    if (!profile.found) {
      note(fmt::format("{} ({}): not predicted: {}", c.model, label, profile.source));
      continue;
    }
    note(profile.source);
    MethodSetup setup = method_setup(s, run, label, note);
    if (!setup.found) {
      note(setup.why);
      continue;
    }
    const model::Method& method = setup.method;
    const LinkEstimate& link = setup.link;
    const Engine engine = find_method(c.sync).engine;
    const bool sends_less = is_lossy(c.sync);
    (method.measured_cost ? swept : method.hook.seconds ? hook_swept : on_link).insert(label);
    PredictedExperiment row = measured_row(s, run, label);
    if (engine == Engine::local) {
      row.lossy_basis = "an allreduce of the parameters every H steps";
    } else if (sends_less) {
      row.lossy_basis = method.hook.seconds
                            ? "its buckets as its hook's sweep measured, compressing included"
                            : "what it sends; the CPU time of compressing not modelled";
    }
    if (engine == Engine::bucketed) {
      row.best_s =
          model::best_iteration_s(profile.profile, c.world_size, link.link, method.comm_cpu);
      row.best_without_cpu_s = model::best_iteration_s(profile.profile, c.world_size, link.link);
    }
    row.predicted = predicted_for_repetitions(s, run, profile.profile, method, link.link);
    row.predicted_p95_s = row.predicted.total_s() + profile.profile.spread_p95_s;
    out.rows.push_back(row);
  }
  out.p95_without_others = p95_from_other_methods(out.rows, out.rows);
  if (!swept.empty()) {
    out.notes.push_back(
        fmt::format("each tensor of {} costs what the sweeps of the collectives "
                    "it calls measured",
                    fmt::join(swept, ", ")));
  }
  if (!hook_swept.empty()) {
    out.notes.push_back(fmt::format("each bucket of {} costs what the sweep of its hook measured",
                                    fmt::join(hook_swept, ", ")));
  }
  if (!on_link.empty()) {
    out.notes.push_back(
        fmt::format("each tensor or bucket of {} costs its algorithm's time on "
                    "the link",
                    fmt::join(on_link, ", ")));
  }
  return out;
}

std::string best_text(const PredictedExperiment& r) {
  if (r.best_s <= 0) return "";
  auto from = [&](double best) { return 100 * (r.measured_s / best - 1); };
  std::string text = fmt::format(
      "{}: measured {:.3f} s, {:+.1f}% from the best any bucket plan could reach here ({:.3f} s: "
      "the compute, the wait for the slowest rank, the communication no plan can hide",
      r.label, r.measured_s, from(r.best_s), r.best_s);
  if (r.best_s - r.best_without_cpu_s < 5e-4) return text + ")";
  return text + fmt::format(
                    ", and the CPU of what is sent during backward; {:+.1f}% from {:.3f} s "
                    "without that CPU)",
                    from(r.best_without_cpu_s), r.best_without_cpu_s);
}

const Prediction& prediction_of(const SystemResults& s) {
  if (!s.prediction) s.prediction = std::make_shared<const Prediction>(predict_system(s));
  return *s.prediction;
}

std::string overlap_text(const Prediction& p) {
  std::string text;
  for (const auto& r : p.rows) {
    const RunTrace& trace = trace_of(*r.traced);
    const OverlapShare& o = trace.overlap;
    if (o.iterations == 0) continue;
    text += fmt::format("  {}: {}{}\n", r.label, overlap_share_text(o),
                        o.comm_s <= 0 || trace.stragglers.straggler < 0
                            ? ""
                            : "; " + stragglers_text(trace.stragglers));
  }
  return text.empty() ? "" : "overlap, from the traces:\n" + text;
}

ModelAccuracy accuracy_of(const Prediction& p) {
  ModelAccuracy a;
  std::vector<double> measured, predicted;
  std::vector<std::string> workload;
  for (const auto& r : p.rows) {
    const double e = std::abs(r.error());
    ++a.experiments;
    a.mean_abs_error += e / static_cast<double>(p.rows.size());
    if (a.largest == nullptr || e > a.largest_abs_error) {
      a.largest_abs_error = e;
      a.largest = &r;
    }
    measured.push_back(r.measured_s);
    predicted.push_back(r.predicted.total_s());
    workload.push_back(workload_of(r));
  }
  const std::map<std::string, double> spread = alike_spread_by_workload(p);
  a.ranking = rank_agreement(
      measured, predicted,
      [&](size_t i, size_t j) {
        const auto &x = p.rows[i], &y = p.rows[j];
        if (!(x.high_s < y.low_s || y.high_s < x.low_s)) return true;
        const auto xs = spread.find(noise_key(x)), ys = spread.find(noise_key(y));
        if (xs == spread.end() || ys == spread.end()) return false;
        const double noise = std::min(xs->second, ys->second);
        if (std::max(x.measured_s, y.measured_s) / std::min(x.measured_s, y.measured_s) - 1 >
            noise) {
          return false;
        }
        ++a.tied_by_alike;
        a.alike_spread = std::max(a.alike_spread, noise);
        return true;
      },
      [&](size_t i, size_t j) { return workload[i] == workload[j]; });
  for (const auto& [i, j] : a.ranking.swapped) {
    const double pi = predicted[i], pj = predicted[j];
    if (std::abs(pi - pj) <= ModelAccuracy::kClose * std::min(pi, pj)) {
      ++a.swapped_close;
      a.swapped_close_apart_s =
          std::max(a.swapped_close_apart_s, std::abs(measured[i] - measured[j]));
    }
  }
  return a;
}

AlikeRuns most_apart_alike(const Prediction& p) {
  AlikeRuns most;
  for (const auto& [key, rows] : alike_groups(p)) {
    if (rows.size() < 2) continue;
    const AlikeRuns these = apart(rows);
    if (these.floor() > most.floor()) most = these;
  }
  return most;
}

std::string noise_key(const PredictedExperiment& r) {
  return r.run == nullptr ? "" : report::noise_key(*r.run);
}

std::map<std::string, double> alike_spread_by_workload(const Prediction& p) {
  std::map<std::string, double> spread;
  for (const auto& [key, rows] : alike_groups(p)) {
    if (rows.size() < 2) continue;
    const AlikeRuns these = apart(rows);
    double& s = spread[noise_key(*these.low)];
    s = std::max(s, these.high->measured_s / these.low->measured_s - 1);
  }
  return spread;
}

std::string alike_sentence(const Prediction& p) {
  const AlikeRuns alike = most_apart_alike(p);
  if (!(alike.floor() > 0)) return "";
  return fmt::format(
      "{} runs of one configuration ({}) measured {:.4f} s ({}) to {:.4f} s ({}): no prediction "
      "is within {:.1f}% of both, a floor under the largest error",
      alike.runs, alike.low->label, alike.low->measured_s, alike.low->run->group,
      alike.high->measured_s, alike.high->run->group, 100 * alike.floor());
}

ValidatedRange validated_range(const Prediction& p) {
  const auto size_of = [](const PredictedExperiment& r) {
    std::set<std::string> hosts;
    for (const auto& rank : r.run->record.ranks) hosts.insert(rank.host);
    return std::pair{r.run->record.config.world_size,
                     std::max<int>(1, static_cast<int>(hosts.size()))};
  };
  ValidatedRange v;
  for (const auto& r : p.rows) {
    const auto [ranks, hosts] = size_of(r);
    if (std::pair{ranks, hosts} > std::pair{v.ranks, v.hosts}) v.ranks = ranks, v.hosts = hosts;
  }
  std::vector<double> errors;
  for (const auto& r : p.rows) {
    if (size_of(r) == std::pair{v.ranks, v.hosts}) errors.push_back(std::abs(r.error()));
  }
  v.experiments = static_cast<int>(errors.size());
  if (!errors.empty()) {
    v.mean_abs_error =
        std::accumulate(errors.begin(), errors.end(), 0.0) / static_cast<double>(errors.size());
    v.largest_abs_error = *std::max_element(errors.begin(), errors.end());
  }
  return v;
}

std::string ValidatedRange::text() const {
  return fmt::format(
      "{} ranks on {} host{}, where the model's error is {:.1f}% on average, "
      "{:.1f}% at most ({} run{})",
      ranks, hosts, hosts == 1 ? "" : "s", 100 * mean_abs_error, 100 * largest_abs_error,
      experiments, experiments == 1 ? "" : "s");
}

std::string swapped_text(const ModelAccuracy& a) {
  if (a.swapped_close == 0) return "";
  return fmt::format(
      "{} of the {} pairs are predicted within {:.0f}% of each other (the model does not tell them "
      "apart), measured up to {:.3f} s apart",
      a.swapped_close, a.ranking.swapped.size(), 100 * ModelAccuracy::kClose,
      a.swapped_close_apart_s);
}

std::string errors_sentence(const ModelAccuracy& a) {
  if (a.experiments == 0) return "";
  const PredictedExperiment& w = *a.largest;
  const std::string why = w.communication_text();
  return fmt::format(
      "over {} predicted experiments, mean |error| {:.1f}%, largest {:.1f}% ({}, most of it in "
      "{}, {:+.3f} s predicted minus measured{}): {} the targets (mean at most {:.0f}%, largest "
      "at most {:.0f}%)",
      a.experiments, 100 * a.mean_abs_error, 100 * a.largest_abs_error, w.label, w.worst_phase(),
      w.worst_phase_difference_s(), why.empty() ? "" : "; " + why,
      a.within_targets() ? "within" : "outside", 100 * ModelAccuracy::kMeanTarget,
      100 * ModelAccuracy::kLargestTarget);
}

std::string ranking_sentence(const Prediction& p, const ModelAccuracy& a) {
  if (a.experiments == 0) return "";
  const RankAgreement& k = a.ranking;
  std::vector<std::string> swapped;
  for (const auto& [i, j] : k.swapped) {
    swapped.push_back(fmt::format("{} and {}", p.rows[i].label, p.rows[j].label));
  }
  return fmt::format(
      "Kendall's tau-b between the measured and the predicted order {:.2f}, over the {} pairs "
      "of methods that ran one workload (model, ranks, batch), {} within each other's noise "
      "counted as tied{}: {}",
      k.tau_b, k.pairs, k.tied_measured,
      a.tied_by_alike == 0
          ? ""
          : fmt::format(" ({} of them no further apart than runs of one configuration of their "
                        "workload were: up to {:.1f}%)",
                        a.tied_by_alike, 100 * a.alike_spread),
      k.preserved() ? "the measured order is the predicted one"
                    : fmt::format("the model orders {} the other way{}", fmt::join(swapped, "; "),
                                  a.swapped_close > 0 ? " (" + swapped_text(a) + ")" : ""));
}

std::string accuracy_text(const Prediction& p, const ModelAccuracy& a) {
  if (a.experiments == 0) return "";
  const RankAgreement& k = a.ranking;
  std::string text = fmt::format("accuracy: {}\n", errors_sentence(a));
  if (const std::string alike = alike_sentence(p); !alike.empty()) {
    text += fmt::format("alike: {}\n", alike);
  }
  text += fmt::format("ranking: {}\n", ranking_sentence(p, a));
  for (const auto& [i, j] : k.swapped) {
    const auto &x = p.rows[i], &y = p.rows[j];
    text += fmt::format("  {} {:.3f} s, {} {:.3f} s measured; predicted {:.3f} s, {:.3f} s\n",
                        x.label, x.measured_s, y.label, y.measured_s, x.predicted.total_s(),
                        y.predicted.total_s());
  }
  return text;
}

std::string prediction_text(const SystemResults& s) {
  const Prediction& p = prediction_of(s);
  std::string text = fmt::format("{}\n", p.label);
  for (const auto& n : p.notes) text += fmt::format("  {}\n", n);
  for (const auto& e : link_efficiency(s)) {
    text += fmt::format("  link efficiency: {}\n", link_efficiency_text(e));
  }
  for (const auto& r : rested_sweeps(s)) text += fmt::format("  {}\n", rested_sweeps_text(r));
  for (const auto& line : rest_pricing_text(s)) text += fmt::format("  {}\n", line);
  if (p.rows.empty()) {
    const bool trains = std::any_of(s.runs.begin(), s.runs.end(),
                                    [](const TrainRun& r) { return r.kind == "train"; });
    return text + (trains ? "  no experiment could be predicted\n"
                          : fmt::format("  no experiment could be predicted: no training run here, "
                                        "only {} sizes of collectives swept (the model's inputs)\n",
                                        s.collectives.size() + s.rested.size()));
  }
  text += rows_text(p);
  for (const auto& r : p.rows) {
    if (r.best_s > 0) text += best_text(r) + "\n";
  }
  return text + overlap_text(p) + accuracy_text(p, accuracy_of(p)) + p95_sentence(p) + "\n" +
         extrapolation_text(extrapolation_of(s));
}

std::string rows_text(const Prediction& p) {
  std::string text =
      fmt::format("\n{:<44} {:>10} {:>10} {:>8}  {:<21}  {}\n", "experiment", "measured",
                  "predicted", "error", "p95 measured/predicted", "phases, measured/predicted (s)");
  for (const auto& r : p.rows) {
    const auto ms = values_of(r.measured), qs = values_of(r.predicted);
    std::string phases;
    for (size_t i = 1; i < kPhaseCount; ++i) {
      phases += fmt::format("{} {:.3f}/{:.3f}  ", kPhaseNames[i], ms[i], qs[i]);
    }
    // The iteration counted is the slowest rank's; the phases are the ranks' mean.
    phases += fmt::format("slowest rank +{:.3f}/+{:.3f}", r.measured_s - r.measured.phases_s(),
                          r.predicted.slowest_excess_s);
    text +=
        fmt::format("{:<44} {:>9.3f}s {:>9.3f}s {:>+7.1f}%  {:<21}  {}\n", r.label, r.measured_s,
                    r.predicted.total_s(), 100 * r.error(),
                    fmt::format("p95 {:.3f}/{:.3f}", r.measured_p95_s, r.predicted_p95_s), phases);
  }
  return text;
}

std::string p95_sentence(const Prediction& p) {
  const PredictedExperiment* largest = nullptr;
  double sum = 0;
  int n = 0;
  for (const auto& r : p.rows) {
    if (!(r.measured_p95_s > 0) || std::isnan(r.predicted_p95_s)) continue;
    sum += std::abs(r.p95_error()), ++n;
    if (largest == nullptr || std::abs(r.p95_error()) > std::abs(largest->p95_error())) {
      largest = &r;
    }
  }
  if (largest == nullptr) return "";
  const std::string spread =
      "the mean plus the compute's spread (the slowest rank's, in the "
      "blocking runs)";
  std::string basis = "predicted as " + spread;
  if (p.p95_without_others >= 0) {
    basis =
        "predicted as the mean times the p95-to-mean ratio that the other methods of its workload "
        "and backend measured" +
        (p.p95_ratio_ranks > 0 ? fmt::format(" on {} ranks", p.p95_ratio_ranks) : std::string()) +
        " (the median over them; a method's own runs left out)";
    if (p.p95_without_others > 0) {
      basis +=
          fmt::format(", or, for the {} with no other method, as {}", p.p95_without_others, spread);
    }
  }
  return fmt::format(
      "the 95th percentile iteration, {}: mean |error| {:.1f}%, largest {:+.1f}% "
      "({}), over {} experiments",
      basis, 100 * sum / n, 100 * largest->p95_error(), largest->label, n);
}

}  // namespace dtbench
