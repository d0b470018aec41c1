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

// Rows sorted by a column of numbers.
void sort_numeric(Table& t, const std::string& column) {
  const size_t c = t.column(column);
  std::stable_sort(t.rows.begin(), t.rows.end(), [c](const auto& a, const auto& b) {
    return a[c].template get<double>() < b[c].template get<double>();
  });
}

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", 100 * fraction);
}

// Where test accuracy was highest and lowest, naming the setting (`what`) held in `column`.
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
  sort_numeric(f.table, "bucket_MB");
  f.series = fmt::format("{}", fmt::join(backends, " "));
  f.caption = fmt::format("bucketed: iteration time and exposed sync vs bucket size; {}, {} ranks",
                          model, runs[0]->ranks);
  const size_t best = f.table.extremes("mean_s").first;
  f.sentences.push_back(fmt::format(
      "The fastest bucket size was {} MB ({} s per iteration, {}). The payload per iteration is "
      "the same for every bucket size ({} MB sent + received by rank 0): buckets change when "
      "bytes move, not how many.",
      short_number(f.table.number(best, "bucket_MB")), short_number(f.table.number(best, "mean_s")),
      f.table.text(best, "backend"), short_number(f.table.number(best, "payload_MB"))));
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
  sort_numeric(f.table, "global_batch");
  f.caption = fmt::format("Test accuracy and loss after {} epoch(s) vs global batch; {}, {} ranks",
                          runs[0]->record.config.epochs, model, runs[0]->ranks);
  range_sentence(f, "global_batch", "global batch");
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
  const size_t last = f.table.rows.size() - 1;
  f.sentences.push_back(fmt::format(
      "Test accuracy went from {} after epoch 1 to {} after epoch {}.",
      percent(f.table.number(0, "test_accuracy")), percent(f.table.number(last, "test_accuracy")),
      static_cast<int>(f.table.number(last, "epoch"))));
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
  const size_t fastest = f.table.extremes("mean_s").first;
  f.sentences.push_back(
      fmt::format("{} was the fastest mode ({} s per iteration, exposed sync {} s).",
                  f.table.text(fastest, "mode"), short_number(f.table.number(fastest, "mean_s")),
                  short_number(f.table.number(fastest, "sync_s"))));
  range_sentence(f, "mode", "mode");
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
  range_sentence(f, "aggregate", "aggregation");
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
  const Table& t = f.table;
  const size_t kind = t.column("kind"), method = t.column("method"),
               severity = t.column("severity");
  std::stable_sort(f.table.rows.begin(), f.table.rows.end(), [&](const auto& a, const auto& b) {
    return std::make_tuple(a[kind].template get<std::string>(),
                           a[method].template get<std::string>(),
                           a[severity].template get<double>()) <
           std::make_tuple(b[kind].template get<std::string>(),
                           b[method].template get<std::string>(),
                           b[severity].template get<double>());
  });
  f.series = fmt::format("{}", fmt::join(series, " "));
  // Who was slow, as the matrix said: the slow ranks and the shaped hosts of these runs.
  std::set<int> slow_ranks, slow_hosts;
  for (const TrainRun* r : compute) slow_ranks.insert(r->record.config.slow_rank);
  for (const TrainRun* r : link) slow_hosts.insert(r->bottleneck_host);
  auto who = [](const char* what, const std::set<int>& ids) {
    return ids.empty() ? fmt::format("a {}", what)
                       : fmt::format("{} {}", what, fmt::join(ids, ", "));
  };
  f.labels = {{"slow_rank", who("rank", slow_ranks)}, {"slow_host", who("host", slow_hosts)}};
  f.caption = fmt::format(
      "One slow node: {} doing extra work each iteration (compute, ms), "
      "or {}'s link slowed (link, Mbit/s; emulated cluster only); "
      "slowdown against the same method without it; {}",
      f.labels["slow_rank"], f.labels["slow_host"], model.empty() ? link_model : model);
  for (size_t k = 0; k < t.rows.size(); ++k) {
    const bool is_link = t.text(k, "kind") == "link_mbit";
    const bool baseline =
        t.number(k, "severity") == (is_link ? parse_rate_mbit(cluster_rate(s)) : 0.0);
    if (baseline || std::isnan(t.number(k, "slowdown"))) continue;
    f.sentences.push_back(
        fmt::format("{} with a {} {} bottleneck: {} s per iteration, {}x its time without.",
                    t.text(k, "method"), short_number(t.number(k, "severity")),
                    is_link ? "Mbit/s link" : "ms compute", short_number(t.number(k, "mean_s")),
                    short_number(t.number(k, "slowdown"))));
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
