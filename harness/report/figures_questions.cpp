// Figures that vary one setting: bucket size, global batch, epochs, mode, aggregation, a
// bottleneck node.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/figures.h"
#include "report/figures_internal.h"
#include "train/phase_timer.h"
#include "train/stats.h"

namespace dtbench::report {
namespace {

double test_loss(const TrainRun& r) {
  const auto& e = r.record.evaluations;
  return e.empty() ? std::nan("") : e.back().loss;
}

double number_of(const std::string& text) {
  return text.empty() ? std::nan("") : std::stod(text);
}

// Rows sorted by the first column as a number.
void sort_numeric(Table& t) {
  std::stable_sort(t.rows.begin(), t.rows.end(), [](const auto& a, const auto& b) {
    return a[0].template get<double>() < b[0].template get<double>();
  });
}

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", 100 * fraction);
}

// "Varying X: time a..b s, accuracy c..d" for a table whose columns hold those.
void range_sentence(FigureData& f, const std::string& what, size_t accuracy_column) {
  if (f.table.rows.size() < 2) return;
  auto [low, high] = f.table.extremes(accuracy_column);
  if (low == f.table.rows.size()) return;
  auto key = [&](size_t r) {
    const auto& cell = f.table.rows[r][0];
    return cell.is_string() ? cell.get<std::string>() : short_number(cell.get<double>());
  };
  double lo = f.table.rows[low][accuracy_column].get<double>();
  double hi = f.table.rows[high][accuracy_column].get<double>();
  std::string at_lo = key(low), at_hi = key(high);
  f.sentences.push_back(
      fmt::format("Test accuracy was highest with {} {} ({}) and lowest with {} {} ({}).", what,
                  at_hi, percent(hi), what, at_lo, percent(lo)));
}

// The emulated cluster's own link rate ("1gbit"), "" when the system is not emulated.
std::string cluster_rate(const SystemResults& s) {
  const auto& net = s.system.value("network", nlohmann::json());
  if (!net.is_object() || !net.contains("spec")) return "";
  std::string rate = net["spec"].value("rate", "");
  return rate == "none" ? "" : rate;
}

}  // namespace

FigureData bucket_sweep(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "bucket_sweep", &model);
  f.table.columns = {"bucket_MB",   "backend", "mean_s",    "ci95_low_s",
                     "ci95_high_s", "sync_s",  "payload_MB"};
  std::vector<std::string> backends;
  for (const TrainRun* r : runs) {
    Summary t = summarize(timed(*r));
    const auto& rank0 = r->record.ranks.at(0);
    double payload = static_cast<double>(rank0.payload_sent_bytes + rank0.payload_received_bytes) /
                     static_cast<double>(r->record.iterations.total_s.size()) / 1e6;
    f.table.rows.push_back({r->record.config.bucket_mb, param(*r, "backend"), t.mean, t.ci95_low,
                            t.ci95_high, phase_mean(*r, static_cast<size_t>(Phase::sync)),
                            payload});
    if (std::find(backends.begin(), backends.end(), param(*r, "backend")) == backends.end()) {
      backends.push_back(param(*r, "backend"));
    }
  }
  if (runs.empty()) return f;
  sort_numeric(f.table);
  f.series = fmt::format("{}", fmt::join(backends, " "));
  f.caption = fmt::format("bucketed: iteration time and exposed sync vs bucket size; {}, {} ranks",
                          model, runs[0]->ranks);
  auto best = f.table.rows.begin() + static_cast<std::ptrdiff_t>(f.table.extremes(2).first);
  f.sentences.push_back(fmt::format(
      "The fastest bucket size was {} MB ({} s per iteration, {}). The payload per iteration is "
      "the same for every bucket size ({} MB sent + received by rank 0): buckets change when "
      "bytes move, not how many.",
      short_number((*best)[0].get<double>()), short_number((*best)[2].get<double>()),
      (*best)[1].get<std::string>(), short_number((*best)[6].get<double>())));
  return f;
}

FigureData batch_size(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "batch_size", &model);
  f.table.columns = {"global_batch",     "iterations", "mean_s",
                     "final_train_loss", "test_loss",  "test_accuracy"};
  for (const TrainRun* r : runs) {
    f.table.rows.push_back({static_cast<double>(r->record.config.global_batch),
                            static_cast<int64_t>(r->record.iterations.loss.size()),
                            summarize(timed(*r)).mean, r->record.iterations.loss.back(),
                            test_loss(*r), final_accuracy(*r)});
  }
  if (runs.empty()) return f;
  sort_numeric(f.table);
  f.caption = fmt::format("Test accuracy and loss after {} epoch(s) vs global batch; {}, {} ranks",
                          runs[0]->record.config.epochs, model, runs[0]->ranks);
  range_sentence(f, "global batch", 5);
  f.sentences.push_back(
      "With the same number of epochs, a larger batch takes fewer optimiser "
      "steps at the same learning rate.");
  return f;
}

FigureData epochs(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "epochs", &model);
  f.table.columns = {"epoch", "iterations", "mean_train_loss", "test_loss", "test_accuracy"};
  if (runs.empty()) return f;
  const TrainRun& r = *runs[0];
  for (const auto& e : r.record.evaluations) {
    double sum = 0;
    int64_t n = 0;
    for (size_t i = 0; i < r.record.iterations.loss.size(); ++i) {
      if (r.record.iterations.epoch[i] == e.epoch) sum += r.record.iterations.loss[i], ++n;
    }
    f.table.rows.push_back({static_cast<double>(e.epoch), e.iterations,
                            n > 0 ? sum / static_cast<double>(n) : std::nan(""), e.loss,
                            e.accuracy});
  }
  if (f.table.rows.empty()) return f;
  f.caption = fmt::format("Test accuracy and loss after each epoch (one run); {}, {} ranks, {}",
                          model, r.ranks, method_label(r));
  const auto& first = f.table.rows.front();
  const auto& last = f.table.rows.back();
  f.sentences.push_back(
      fmt::format("Test accuracy went from {} after epoch 1 to {} after epoch {}.",
                  percent(first[4].get<double>()), percent(last[4].get<double>()),
                  static_cast<int>(last[0].get<double>())));
  return f;
}

FigureData modes(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "modes", &model);
  f.table.columns = {"mode",        "method", "mean_s",     "ci95_low_s",
                     "ci95_high_s", "sync_s", "final_loss", "test_accuracy"};
  for (const TrainRun* r : runs) {
    Summary t = summarize(timed(*r));
    f.table.rows.push_back({param(*r, "mode"), method_label(*r), t.mean, t.ci95_low, t.ci95_high,
                            phase_mean(*r, static_cast<size_t>(Phase::sync)),
                            r->record.iterations.loss.back(), final_accuracy(*r)});
  }
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Blocking (communicate after backward), overlap (from gradient hooks "
      "during backward) and stale (apply the previous step's gradient); {}, "
      "{} ranks, {} iterations",
      model, runs[0]->ranks, runs[0]->record.iterations.loss.size());
  auto fastest = f.table.rows.begin() + static_cast<std::ptrdiff_t>(f.table.extremes(2).first);
  f.sentences.push_back(
      fmt::format("{} was the fastest mode ({} s per iteration, exposed sync {} s).",
                  (*fastest)[0].get<std::string>(), short_number((*fastest)[2].get<double>()),
                  short_number((*fastest)[5].get<double>())));
  range_sentence(f, "mode", 7);
  return f;
}

FigureData aggregate(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "aggregate", &model);
  f.table.columns = {"aggregate", "final_loss", "test_loss", "test_accuracy", "mean_s"};
  Table curves;
  curves.columns = {"aggregate", "iteration", "loss"};
  std::vector<std::string> series;
  for (const TrainRun* r : runs) {
    f.table.rows.push_back({param(*r, "aggregate"), r->record.iterations.loss.back(), test_loss(*r),
                            final_accuracy(*r), summarize(timed(*r)).mean});
    series.push_back(param(*r, "aggregate"));
    add_loss_curve(curves, param(*r, "aggregate"), *r);
  }
  f.extra.push_back({"curves", curves});
  f.series = fmt::format("{}", fmt::join(series, " "));
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Training loss with the gradients averaged (mean) or summed (sum: the "
      "step is n = {} times larger); {}",
      runs[0]->ranks, model);
  range_sentence(f, "aggregation", 3);
  return f;
}

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
  std::stable_sort(f.table.rows.begin(), f.table.rows.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a[1].template get<std::string>(), a[2].template get<std::string>(),
                           a[0].template get<double>()) <
           std::make_tuple(b[1].template get<std::string>(), b[2].template get<std::string>(),
                           b[0].template get<double>());
  });
  f.series = fmt::format("{}", fmt::join(series, " "));
  f.caption = fmt::format(
      "One slow node: rank 3 doing extra work each iteration (compute, ms), "
      "or host 3's link slowed (link, Mbit/s; emulated cluster only); "
      "slowdown against the same method without it; {}",
      model.empty() ? link_model : model);
  for (size_t k = 0; k < f.table.rows.size(); ++k) {
    const auto& row = f.table.rows[k];
    bool baseline =
        row[0].get<double>() == (row[1] == "link_mbit" ? parse_rate_mbit(cluster_rate(s)) : 0.0);
    if (baseline || std::isnan(row[6].get<double>())) continue;
    f.sentences.push_back(
        fmt::format("{} with a {} {} bottleneck: {} s per iteration, {}x its time without.",
                    row[2].get<std::string>(), short_number(row[0].get<double>()),
                    row[1].get<std::string>() == "link_mbit" ? "Mbit/s link" : "ms compute",
                    short_number(row[3].get<double>()), short_number(row[6].get<double>())));
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
