#include "report/predict/diagnosis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "record/start_facts.h"
#include "report/predict/link_efficiency.h"
#include "report/predict/predict.h"
#include "report/read/select.h"
#include "report/traces/run_trace.h"
#include "stats/rank_stats.h"

namespace dtbench {
namespace {

// Per group, the parameters whose values differ between its training experiments (beyond the
// method, backend and mode, which the engine's label names).
std::map<std::string, std::set<std::string>> varying_settings(const SystemResults& s) {
  std::map<std::string, std::map<std::string, std::set<std::string>>> values;
  for (const auto& r : s.runs) {
    if (r.kind != "train") continue;
    for (const auto& [key, value] : r.params.items()) values[r.group][key].insert(value.dump());
  }
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [group, keys] : values) {
    for (const auto& [key, seen] : keys) {
      if (seen.size() > 1 && key != "sync" && key != "backend" && key != "mode") {
        out[group].insert(key);
      }
    }
  }
  return out;
}

// "allreduce/mpi (batch_size, global_batch=128)", "allreduce (bottleneck_compute, rank 3 slowed
// by 20 ms)": the method and group, and what sets the experiment apart from its group's others,
// a straggler or a slow link.
std::string run_label(const TrainRun& r,
                      const std::map<std::string, std::set<std::string>>& varying) {
  std::string extra;
  const auto keys = varying.find(r.group);
  if (keys != varying.end()) {
    for (const auto& key : keys->second) {
      if (!r.params.contains(key)) continue;
      const auto& v = r.params[key];
      extra += fmt::format(", {}={}", key, v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
  const TrainConfig& c = r.record.config;
  if (c.slow_rank >= 0) extra += fmt::format(", rank {} slowed by {} ms", c.slow_rank, c.slow_ms);
  if (!r.bottleneck_rate.empty()) {
    extra += fmt::format(", host {} at {}", r.bottleneck_host, r.bottleneck_rate);
  }
  return fmt::format("{} ({}{})", report::engine_label(r), r.group, extra);
}

// The first repetition of every training experiment on two ranks or more.
std::vector<const TrainRun*> first_repetitions(const SystemResults& s) {
  std::vector<const TrainRun*> out;
  for (const auto& r : s.runs) {
    if (r.kind == "train" && r.repeat == 1 && r.record.config.world_size > 1) out.push_back(&r);
  }
  return out;
}

using Labels = std::map<const TrainRun*, std::string>;

Table rank_table(const std::vector<const TrainRun*>& runs, Labels& label) {
  Table t;
  t.columns = {"experiment", "slowest rank", "p50 low s",   "p50 high s",
               "spread %",   "behind rank",  "behind by s", "others wait s"};
  for (const TrainRun* r : runs) {
    const RankSpread s = rank_spread(r->record);
    if (s.ranks.size() < 2) continue;
    double low = s.ranks[0].iteration.p50, high = low;
    std::string host;
    for (const auto& k : s.ranks) {
      low = std::min(low, k.iteration.p50);
      high = std::max(high, k.iteration.p50);
      if (k.rank == s.slowest) host = k.host;
    }
    t.rows.push_back({label[r], fmt::format("{} ({})", s.slowest, host), low, high, 100 * s.spread,
                      s.behind < 0 ? nlohmann::json("") : nlohmann::json(s.behind),
                      s.behind < 0 ? nlohmann::json("") : nlohmann::json(s.behind_by_s),
                      s.behind < 0 ? nlohmann::json("") : nlohmann::json(s.others_wait_s)});
  }
  return t;
}

// Runs grouped by what their start-up probe concluded: the slow host ("" for none), with how
// many runs and one example's words.
std::vector<std::string> link_sentences(const std::vector<const TrainRun*>& runs, Labels& label) {
  struct Seen {
    int runs = 0;
    std::string example, label;
  };
  std::map<std::string, Seen> by_verdict;
  int probed = 0;
  for (const TrainRun* r : runs) {
    const LinkFinding f = link_finding(r->record);
    if (f.links.empty()) continue;
    ++probed;
    Seen& seen = by_verdict[f.slow_host];
    if (seen.runs++ == 0) {
      seen.example = link_finding_text(f);
      seen.label = label[r];
    }
  }
  std::vector<std::string> out;
  out.reserve(by_verdict.size());
  for (const auto& [host, seen] : by_verdict) {
    out.push_back(fmt::format("{} in {} of {} probed runs, e.g. {}: {}.",
                              host.empty() ? "No host stands out" : host + " is slow", seen.runs,
                              probed, seen.label, seen.example));
  }
  return out;
}

}  // namespace

Diagnosis diagnose(const SystemResults& s) {
  Diagnosis d;
  const auto runs = first_repetitions(s);
  const auto varying = varying_settings(s);
  Labels label;
  for (const TrainRun* r : runs) label[r] = run_label(*r, varying);
  d.ranks = rank_table(runs, label);
  d.links = link_sentences(runs, label);
  double misaligned_s = 0;  // the worst alignment of a traced run's clocks; 0: by the barrier
  for (const TrainRun* r : runs) {
    if (r->trace_file().empty()) continue;
    const RunTrace& trace = trace_of(*r);
    const Stragglers& st = trace.stragglers;
    if (st.straggler >= 0) {
      d.stragglers.push_back(fmt::format("{}: {}.", label[r], stragglers_text(st)));
      misaligned_s = std::max(misaligned_s, worst_misalignment_s(r->record));
    }
    const OverlapShare& o = trace.overlap;
    if (o.iterations == 0) continue;
    d.overlap.push_back(fmt::format("{}: {}.", label[r], overlap_share_text(o)));
  }
  if (!d.stragglers.empty()) {
    // Compute spans are durations on each rank's own clock: the alignment is a finding of its
    // own (the traces' timelines), not a condition of this measure.
    d.stragglers.push_back(
        "A rank's compute is its data, forward and backward in each iteration, timed on its own "
        "clock." +
        (misaligned_s > 0 ? fmt::format(" The traces' clocks were aligned with rank 0's to within "
                                        "{:.3f} ms at worst (offsets measured by ping-pongs at "
                                        "start-up, with their drift by the last iteration).",
                                        misaligned_s * 1e3)
                          : std::string(" The traces' clocks were aligned by a barrier before "
                                        "the first iteration (these records predate the start-up "
                                        "clock offsets).")));
  }
  for (const auto& e : link_efficiency(s)) d.efficiency.push_back(link_efficiency_text(e) + ".");
  const Prediction& p = prediction_of(s);
  const ModelAccuracy a = accuracy_of(p);
  if (a.experiments > 0) {
    std::string errors = errors_sentence(a);
    errors[0] = static_cast<char>(std::toupper(errors[0]));
    d.model.push_back(errors + ".");
    d.model.push_back(ranking_sentence(p, a) + ".");
  }
  return d;
}

std::string diagnosis_markdown(const Diagnosis& d) {
  auto part = [](const std::string& lead, const std::vector<std::string>& sentences,
                 const std::string& otherwise) {
    std::string text = fmt::format("**{}.** ", lead);
    if (sentences.empty()) return text + otherwise + "\n\n";
    for (const auto& s : sentences) text += s + " ";
    return text + "\n\n";
  };
  std::string text;
  if (d.ranks.empty()) {
    text += "**Ranks.** No training experiment on two ranks or more kept each rank's samples.\n\n";
  } else {
    text += fmt::format(
        "**Ranks.** Per training experiment (its first repetition), each rank's own median "
        "iteration time over iterations {}..{}: the slowest rank and how far the ranks are "
        "apart; the rank whose compute is longest, by how much over the others' median, and how "
        "much longer the others then wait in sync.\n\n{}\n",
        kTimedFirst, kTimedLast, d.ranks.markdown(1000));
  }
  text += part("Stragglers", d.stragglers,
               "No traced run on two ranks or more (an entry's `\"trace\": true`; the model "
               "matrix traces its runs).");
  text += part("Links between hosts", d.links,
               "No link between hosts was probed: every rank ran on one host, or the records "
               "were written before the trainer probed its links at start-up.");
  text += part("Overlap", d.overlap, "No traced run: nothing to measure it from.");
  text += part("Link efficiency", d.efficiency,
               "No allreduce sweep with a stated link rate (the emulated cluster states its).");
  text += part("The model", d.model,
               "No experiment could be predicted (the model matrix measures what it needs).");
  return text;
}

}  // namespace dtbench
