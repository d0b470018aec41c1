// Figures about the sync methods themselves: iteration time, its breakdown, bytes moved,
// CPU and memory, loss and accuracy, scaling with the number of ranks.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/figures.h"
#include "report/figures_internal.h"
#include "train/phase_timer.h"
#include "train/stats.h"

namespace dtbench::report {
namespace {

double mb(double bytes) {
  return bytes / 1e6;
}

std::string model_caption(const std::string& model, const TrainRun& r) {
  return fmt::format("{}, {} ranks, global batch {}", model, r.ranks, r.record.config.global_batch);
}

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

namespace {

bool is_python_ddp(const TrainRun& r) {
  return r.record.config.sync == "python_ddp";
}

// "median of 3 repetitions, range" or "one repetition, 95% interval".
std::string interval_words(const Repeated& t) {
  return t.reps > 1 ? fmt::format("ranges over {} repetitions", t.reps)
                    : "within-run 95% intervals";
}

// Fastest and slowest of one backend's methods, and whether that ranking is out of the noise.
std::string ranking_sentence(const std::string& backend,
                             const std::vector<std::pair<std::string, Repeated>>& rows) {
  auto by_time = [](const auto& a, const auto& b) { return a.second.median_s < b.second.median_s; };
  const auto& best = *std::min_element(rows.begin(), rows.end(), by_time);
  const auto& worst = *std::max_element(rows.begin(), rows.end(), by_time);
  std::string ratio = short_number(worst.second.median_s / best.second.median_s);
  if (stands_out(best.second, worst.second)) {
    return fmt::format(
        "Over {}, {} was the fastest method ({} s per iteration) and {} the slowest ({} s): "
        "{}x, a difference that stands out of the noise (their {} do not overlap).",
        backend, best.first, short_number(best.second.median_s), worst.first,
        short_number(worst.second.median_s), ratio, interval_words(best.second));
  }
  return fmt::format(
      "Over {}, the methods ranged from {} s ({}) to {} s ({}), {}x, but the {} of the fastest "
      "and the slowest overlap: no ranking of them stands out of the noise.",
      backend, short_number(best.second.median_s), best.first, short_number(worst.second.median_s),
      worst.first, ratio, interval_words(best.second));
}

std::string python_ddp_sentence(const TrainRun& python, const Repeated& reference,
                                const std::vector<std::pair<std::string, Repeated>>& methods) {
  double low = 1e300, high = 0;
  std::string fastest, slowest;
  int out_of_noise = 0;
  for (const auto& [label, t] : methods) {
    double ratio = ratio_within_rounds(t, reference);
    if (std::isnan(ratio)) continue;
    if (ratio < low) low = ratio, fastest = label;
    if (ratio > high) high = ratio, slowest = label;
    out_of_noise += stands_out(t, reference) ? 1 : 0;
  }
  std::string text = fmt::format(
      "PyTorch's Python DDP (torch {}, over Gloo, the same hosts, ranks, threads and data) took "
      "{} s per iteration; ",
      python.record.system.value("torch", "?"), short_number(reference.median_s));
  if (fastest.empty()) return text + "no method ran in the same rounds to compare with it.";
  text += fmt::format(
      "dtbench's methods took from {}x ({}) to {}x ({}) of its time, ratios taken within each "
      "round; {} of {} differ from it by more than the noise.",
      short_number(low), fastest, short_number(high), slowest, out_of_noise, methods.size());
  if (!python.record.system.value("torch_mpi_available", true)) {
    text +=
        " This machine's Python torch has no MPI backend (torch.distributed.is_mpi_available() "
        "is False), so Python DDP runs over Gloo only and the MPI methods are compared with it "
        "across backends.";
  }
  return text;
}

// Figure 1's table, caption and sentences for the runs of one matrix group.
FigureData iteration_times_of(const SystemResults& s, const std::string& group) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, group, &model);
  f.table.columns = {"method",     "backend",     "reps",          "median_s",
                     "low_s",      "high_s",      "rep_min_s",     "rep_max_s",
                     "ci95_low_s", "ci95_high_s", "vs_python_ddp", "noisy"};
  const TrainRun* python = nullptr;
  for (const TrainRun* r : runs) {
    if (is_python_ddp(*r)) python = r;
  }
  Repeated reference = python != nullptr ? repeated_time(s, *python) : Repeated{};
  std::map<std::string, std::vector<std::pair<std::string, Repeated>>> by_backend;
  std::vector<std::pair<std::string, Repeated>> methods;
  int noisy = 0;
  for (const TrainRun* r : runs) {
    Repeated t = repeated_time(s, *r);
    double ratio = python != nullptr ? ratio_within_rounds(t, reference) : std::nan("");
    f.table.rows.push_back({method_with_mode(*r), param(*r, "backend"), t.reps, t.median_s, t.low_s,
                            t.high_s, t.min_s, t.max_s, t.ci95_low_s, t.ci95_high_s, ratio,
                            t.noisy});
    noisy += t.noisy;
    if (is_python_ddp(*r)) continue;
    by_backend[param(*r, "backend")].push_back({engine_label(*r), t});
    methods.push_back({engine_label(*r), t});
  }
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Iteration time (the slowest rank's): per repetition the mean of iterations {}..{}; bars "
      "the median over repetitions, whiskers their range (with one repetition, the within-run "
      "95% interval); {}",
      kTimedFirst, kTimedLast, model_caption(model, *runs[0]));
  for (const auto& [backend, rows] : by_backend) {
    f.sentences.push_back(ranking_sentence(backend, rows));
  }
  if (python != nullptr) {
    f.sentences.push_back(python_ddp_sentence(*python, reference, methods));
  } else {
    f.sentences.push_back(
        "PyTorch's Python DDP was not measured in these results (a python_ddp experiment in "
        "the matrix measures it beside the methods).");
  }
  if (noisy > 0) {
    f.sentences.push_back(
        fmt::format("{} of these repetitions ran on a noisy machine (column noisy; see Measurement "
                    "conditions): read their times with care.",
                    noisy));
  }
  return f;
}

}  // namespace

FigureData iteration_time(const SystemResults& s, const std::vector<SystemResults>&) {
  return iteration_times_of(s, "sync_methods");
}

FigureData overlap_engines(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f = iteration_times_of(s, "overlap");
  if (f.table.rows.empty()) return f;
  f.caption =
      "The overlap engines (communication launched during backward) on one network: " + f.caption;
  std::map<std::string, double> sync;  // engine -> exposed sync, the representative repetition
  for (const TrainRun* r : runs_of(s, "overlap")) {
    if (is_python_ddp(*r)) continue;
    sync[engine_label(*r)] = phase_mean(*r, static_cast<size_t>(Phase::sync));
  }
  std::string text = "Exposed synchronisation after backward (the representative repetition):";
  for (const auto& [engine, seconds] : sync)
    text += fmt::format(" {} {} s;", engine, short_number(seconds));
  text.back() = '.';
  f.sentences.push_back(text);
  return f;
}

FigureData breakdown(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "sync_methods", &model);
  f.table.columns = {"method", "data_s",      "forward_s", "backward_s",
                     "sync_s", "optimizer_s", "sync_share"};
  for (const TrainRun* r : runs) {
    std::vector<nlohmann::json> row = {method_label(*r)};
    double total = 0, sync = 0;
    for (size_t p = 0; p < kPhaseCount; ++p) {
      double mean = phase_mean(*r, p);
      row.push_back(mean);
      total += mean;
      if (p == static_cast<size_t>(Phase::sync)) sync = mean;
    }
    double share = total > 0 ? sync / total : 0;
    row.push_back(share);
    f.table.rows.push_back(row);
  }
  if (runs.empty()) return f;
  auto [least, most] = f.table.extremes("sync_share");
  f.caption = fmt::format(
      "Mean time per phase (iterations {}..{}); sync is the exposed "
      "synchronisation, waited for after backward; {}",
      kTimedFirst, kTimedLast, model_caption(model, *runs[0]));
  f.sentences.push_back(fmt::format(
      "Exposed synchronisation ranged from {:.0f}% of the iteration ({}) to {:.0f}% ({}). "
      "Methods that communicate during backward show their cost in the backward phase instead.",
      100 * f.table.number(least, "sync_share"), f.table.text(least, "method"),
      100 * f.table.number(most, "sync_share"), f.table.text(most, "method")));
  return f;
}

FigureData bytes_moved(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "sync_methods", &model);
  f.table.columns = {"method",      "rank",           "payload_sent_MB", "payload_received_MB",
                     "nic_sent_MB", "nic_received_MB"};
  Table plot;
  plot.columns = {"method", "index", "rank", "payload_MB"};
  std::pair<std::string, double> max_ratio{"", 0};
  int index = 0;
  for (const TrainRun* r : runs) {
    double iterations = static_cast<double>(r->record.iterations.total_s.size());
    double lowest = 1e300, highest = 0;
    for (const auto& rank : r->record.ranks) {
      double nic_sent = 0, nic_received = 0;
      for (const auto& [dev, c] : rank.nic.items()) {
        nic_sent += c.value("sent_bytes", 0.0);
        nic_received += c.value("received_bytes", 0.0);
      }
      double sent = mb(rank.payload_sent_bytes / iterations);
      double received = mb(rank.payload_received_bytes / iterations);
      f.table.rows.push_back({method_label(*r), rank.rank, sent, received,
                              mb(nic_sent / iterations), mb(nic_received / iterations)});
      plot.rows.push_back({method_label(*r), index, rank.rank, sent + received});
      lowest = std::min(lowest, sent + received);
      highest = std::max(highest, sent + received);
    }
    if (lowest > 0 && highest / lowest > max_ratio.second)
      max_ratio = {method_label(*r), highest / lowest};
    ++index;
  }
  f.extra.push_back({"plot", plot});
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Gradient payload sent + received per rank per iteration (what the "
      "Communicator handed over); NIC counters in the table; {}",
      model_caption(model, *runs[0]));
  f.sentences.push_back(fmt::format(
      "The most uneven method was {}: its busiest rank moved {}x the payload of its least busy "
      "one.",
      max_ratio.first, short_number(max_ratio.second)));
  f.sentences.push_back(
      "NIC counters are those of the interface each rank sees: on one host every rank shares "
      "loopback, so they count everyone's traffic; on the emulated cluster they are per rank.");
  return f;
}

FigureData cpu_memory(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "sync_methods", &model);
  f.table.columns = {"method", "cpu_utilisation", "peak_rss_MB"};
  for (const TrainRun* r : runs) {
    double cpu = 0, rss = 0;
    for (const auto& rank : r->record.ranks) {
      cpu += rank.usage.cpu_utilisation / static_cast<double>(r->record.ranks.size());
      rss = std::max(rss, mb(static_cast<double>(rank.usage.peak_rss_bytes)));
    }
    f.table.rows.push_back({method_label(*r), cpu, rss});
  }
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "CPU utilisation (mean over ranks of (user + system) / wall / cores, "
      "whole run) and peak resident memory (largest rank); {}",
      model_caption(model, *runs[0]));
  auto [low, high] = f.table.extremes("peak_rss_MB");
  f.sentences.push_back(
      fmt::format("Peak memory ranged from {} MB ({}) to {} MB ({}).",
                  short_number(f.table.number(low, "peak_rss_MB")), f.table.text(low, "method"),
                  short_number(f.table.number(high, "peak_rss_MB")), f.table.text(high, "method")));
  return f;
}

FigureData loss_accuracy(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "sync_methods", &model);
  f.table.columns = {"method", "iterations", "final_loss", "test_accuracy", "test_images"};
  Table curves;
  curves.columns = {"method", "iteration", "loss"};
  std::vector<std::string> series;
  for (const TrainRun* r : runs) {
    const auto& e = r->record.evaluations;
    f.table.rows.push_back(
        {method_label(*r), static_cast<int64_t>(r->record.iterations.loss.size()),
         r->record.iterations.loss.back(), final_accuracy(*r), e.empty() ? 0 : e.back().total});
    if (param(*r, "backend") == "gloo" && param(*r, "sync") != "c10d_ddp") continue;
    series.push_back(method_label(*r));
    add_loss_curve(curves, method_label(*r), *r);
  }
  f.extra.push_back({"curves", curves});
  f.series = fmt::format("{}", fmt::join(series, " "));
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Training loss per iteration (MPI methods and c10d_ddp) and test "
      "accuracy at the end; {}",
      model_caption(model, *runs[0]));
  auto [low, high] = f.table.extremes("test_accuracy");
  double lo = low < f.table.rows.size() ? f.table.number(low, "test_accuracy") : 1;
  double hi = high < f.table.rows.size() ? f.table.number(high, "test_accuracy") : 0;
  auto iterations = static_cast<int64_t>(f.table.number(0, "iterations"));
  if (hi >= lo && hi - lo < 5e-4) {
    f.sentences.push_back(fmt::format(
        "Every method reached the same test accuracy after {} iterations, {:.1f}%: they compute "
        "the same averaged gradient, up to the order of floating-point sums.",
        iterations, 100 * hi));
  } else if (hi >= lo) {
    f.sentences.push_back(fmt::format(
        "Test accuracy after {} iterations ranged from {:.1f}% to {:.1f}% across methods: they "
        "compute the same averaged gradient, so differences come from the order of "
        "floating-point sums, which BatchNorm and a high learning rate amplify.",
        iterations, 100 * lo, 100 * hi));
  }
  return f;
}

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
