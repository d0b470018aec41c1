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

}  // namespace

FigureData iteration_time(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "sync_methods", &model);
  f.table.columns = {"method",     "backend",     "n",        "mean_s",
                     "ci95_low_s", "ci95_high_s", "median_s", "p95_s"};
  std::map<std::string, std::pair<std::string, double>> best, worst;  // backend -> (method, s)
  for (const TrainRun* r : runs) {
    Summary t = summarize(timed(*r));
    std::string backend = param(*r, "backend");
    f.table.rows.push_back(
        {param(*r, "sync"), backend, t.n, t.mean, t.ci95_low, t.ci95_high, t.median, t.p95});
    if (!best.count(backend) || t.mean < best[backend].second)
      best[backend] = {param(*r, "sync"), t.mean};
    if (!worst.count(backend) || t.mean > worst[backend].second)
      worst[backend] = {param(*r, "sync"), t.mean};
  }
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Mean iteration time (iterations {}..{}, the slowest rank's), 95% "
      "confidence interval; {}",
      kTimedFirst, kTimedLast, model_caption(model, *runs[0]));
  for (const auto& [backend, b] : best) {
    const auto& w = worst[backend];
    f.sentences.push_back(fmt::format(
        "Over {}, {} was the fastest method ({} s per iteration) and {} the slowest ({} s): "
        "{}x.",
        backend, b.first, short_number(b.second), w.first, short_number(w.second),
        short_number(w.second / b.second)));
  }
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
  auto [least, most] = f.table.extremes(6);
  const auto& low = f.table.rows[least];
  const auto& high = f.table.rows[most];
  f.caption = fmt::format(
      "Mean time per phase (iterations {}..{}); sync is the exposed "
      "synchronisation, waited for after backward; {}",
      kTimedFirst, kTimedLast, model_caption(model, *runs[0]));
  f.sentences.push_back(fmt::format(
      "Exposed synchronisation ranged from {:.0f}% of the iteration ({}) to {:.0f}% ({}). "
      "Methods that communicate during backward show their cost in the backward phase instead.",
      100 * low[6].get<double>(), low[0].get<std::string>(), 100 * high[6].get<double>(),
      high[0].get<std::string>()));
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
  auto [low_row, high_row] = f.table.extremes(2);
  const auto* low = &f.table.rows[low_row];
  const auto* high = &f.table.rows[high_row];
  f.sentences.push_back(
      fmt::format("Peak memory ranged from {} MB ({}) to {} MB ({}).",
                  short_number((*low)[2].get<double>()), (*low)[0].get<std::string>(),
                  short_number((*high)[2].get<double>()), (*high)[0].get<std::string>()));
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
  auto [low, high] = f.table.extremes(3);
  double lo = low < f.table.rows.size() ? f.table.rows[low][3].get<double>() : 1;
  double hi = high < f.table.rows.size() ? f.table.rows[high][3].get<double>() : 0;
  int64_t iterations = f.table.rows[0][1].get<int64_t>();
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
  std::sort(f.table.rows.begin() + 1, f.table.rows.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a[0].template get<std::string>(), a[1].template get<int>()) <
           std::make_pair(b[0].template get<std::string>(), b[1].template get<int>());
  });
  f.series = fmt::format("{}", fmt::join(series, " "));
  f.caption = fmt::format(
      "Speedup T(1) / T(n) of an iteration of the same global batch ({}) on "
      "n ranks; efficiency = speedup / n; {}",
      single->record.config.global_batch, model);
  const auto& last = f.table.rows.back();
  f.sentences.push_back(fmt::format(
      "With {} on {} ranks an iteration took {} s against {} s in one process: a speedup of "
      "{} (efficiency {:.0f}%). Ranks that share the same cores cannot add compute.",
      last[0].get<std::string>(), last[1].get<int>(), short_number(last[2].get<double>()),
      short_number(t1), short_number(last[3].get<double>()), 100 * last[4].get<double>()));
  return f;
}

}  // namespace dtbench::report
