#include "report/figures/common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/network_spec.h"
#include "stats/stats.h"

namespace dtbench::report {

namespace {

// How the intervals compared were made: "ranges over 3 repetitions" or, for one, the within-run
// interval and the run-to-run spread it was widened to.
std::string interval_words(const Repeated& t) {
  if (t.reps > 1) return fmt::format("ranges over {} repetitions", t.reps);
  if (!(t.run_spread > 0)) return "within-run 95% intervals";
  return fmt::format(
      "within-run 95% intervals, widened to the {:.1f}% that runs of one configuration fell "
      "apart here",
      100 * t.run_spread);
}

}  // namespace

std::string ranking_sentence(const std::string& where, const std::string& what,
                             const std::vector<std::pair<std::string, Repeated>>& rows) {
  auto by_time = [](const auto& a, const auto& b) { return a.second.median_s < b.second.median_s; };
  if (rows.empty()) return "";
  if (rows.size() == 1) {
    return fmt::format("{}, only {} ran ({} s per iteration): nothing to rank it against.", where,
                       rows[0].first, short_number(rows[0].second.median_s));
  }
  const auto& best = *std::min_element(rows.begin(), rows.end(), by_time);
  const auto& worst = *std::max_element(rows.begin(), rows.end(), by_time);
  std::string ratio = short_number(worst.second.median_s / best.second.median_s);
  if (stands_out(best.second, worst.second)) {
    return fmt::format(
        "{}, {} was the fastest {} ({} s per iteration) and {} the slowest ({} s): "
        "{}x, a difference that stands out of the noise (they do not overlap in their {}).",
        where, best.first, what, short_number(best.second.median_s), worst.first,
        short_number(worst.second.median_s), ratio, interval_words(best.second));
  }
  return fmt::format(
      "{}, the {}s ranged from {} s ({}) to {} s ({}), {}x, but the fastest and the slowest "
      "overlap in their {}: no ranking of them stands out of the noise.",
      where, what, short_number(best.second.median_s), best.first,
      short_number(worst.second.median_s), worst.first, ratio, interval_words(best.second));
}

namespace {

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

}  // namespace

double mb(double bytes) {
  return bytes / 1e6;
}

std::string model_caption(const std::string& model, const TrainRun& r) {
  return fmt::format("{}, {} ranks, global batch {}", model, r.ranks, r.record.config.global_batch);
}

bool is_python_ddp(const TrainRun& r) {
  return r.record.config.sync == "python_ddp";
}

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
      "95% interval widened to how far apart runs of one configuration fell here); {}",
      kTimedFirst, kTimedLast, model_caption(model, *runs[0]));
  for (const auto& [backend, rows] : by_backend) {
    f.sentences.push_back(ranking_sentence("Over " + backend, "method", rows));
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

double test_loss(const TrainRun& r) {
  const auto& e = r.record.evaluations;
  return e.empty() ? std::nan("") : e.back().loss;
}

void sort_numeric(Table& t, const std::string& column) {
  const size_t c = t.column(column);
  std::stable_sort(t.rows.begin(), t.rows.end(), [c](const auto& a, const auto& b) {
    return a[c].template get<double>() < b[c].template get<double>();
  });
}

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", 100 * fraction);
}

void range_sentence(FigureData& f, const std::string& column, const std::string& what) {
  if (f.table.rows.size() < 2) return;
  auto [low, high] = f.table.extremes("test_accuracy");
  if (low == f.table.rows.size()) return;
  auto key = [&](size_t r) {
    const auto& cell = f.table.rows[r][f.table.column(column)];
    return cell.is_string() ? cell.get<std::string>() : short_number(cell.get<double>());
  };
  double lo = f.table.number(low, "test_accuracy");
  double hi = f.table.number(high, "test_accuracy");
  std::string at_lo = key(low), at_hi = key(high);
  f.sentences.push_back(
      fmt::format("Test accuracy was highest with {} {} ({}) and lowest with {} {} ({}).", what,
                  at_hi, percent(hi), what, at_lo, percent(lo)));
}

double parse_rate_mbit(const std::string& rate) {
  return rate.empty() ? std::nan("") : parse_rate(rate) / 1e6;
}

}  // namespace dtbench::report
