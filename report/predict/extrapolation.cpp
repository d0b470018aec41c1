#include "report/predict/extrapolation.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>

#include "catalogue/methods.h"
#include "model/extrapolate.h"
#include "model/openmpi_tuned.h"
#include "report/predict/model_inputs.h"
#include "report/predict/p95.h"
#include "report/read/select.h"

namespace dtbench {
namespace {

// How many ranks' threads each core of the run's machine carried (at least 1): 2 when 4
// one-thread ranks share 2 cores.
double core_share(const TrainRun& run) {
  if (run.record.ranks.empty()) return 1;
  const ThreadShare& t = run.record.ranks[0].threads;
  const int threads = std::max(1, run.record.threads);
  return std::max(1.0, static_cast<double>(t.ranks_sharing) * threads / std::max(1, t.cores));
}

// A training run of `model` on `ranks` ranks, blocking first (whose record the compute came
// from); nullptr when there is none.
const TrainRun* run_on(const SystemResults& s, const std::string& model, int ranks) {
  const TrainRun* found = nullptr;
  for (const auto& r : s.runs) {
    const TrainConfig& c = r.record.config;
    if (r.kind != "train" || c.model != model || c.world_size != ranks) continue;
    if (found == nullptr || c.sync_options.mode == SyncMode::blocking) found = &r;
    if (c.sync_options.mode == SyncMode::blocking) break;
  }
  return found;
}

struct Inputs {
  bool found = false;
  std::string why;
  model::ComputeProfile compute;
  std::map<int, double> share;  // each smaller count with a run: its ranks' threads per core
  std::string source;
};

Inputs compute_for(const SystemResults& s, const TrainRun& run, const std::vector<int>& from) {
  const TrainConfig& c = run.record.config;
  Inputs out;
  std::vector<model::ComputeAt> at;
  std::vector<int> used;
  for (int f : from) {
    const TrainRun* like = run_on(s, c.model, f);
    if (like == nullptr) continue;
    out.share[f] = core_share(*like);
    // At the pace the ranks predicted compute at: a count with cores idle while its ranks wait
    // paces its own runs by their backend, not the counts above it.
    const MeasuredCompute m =
        compute_of(s, c.model, c.global_batch, f, c.backend, waits_idle_cores(s, run));
    if (!m.found) continue;
    at.push_back({out.share[f], static_cast<double>(c.global_batch) / f, m.profile});
    used.push_back(f);
  }
  const double share = core_share(run);
  const double batch = static_cast<double>(c.global_batch) / c.world_size;
  try {
    out.compute = model::compute_at(at, share, batch);
  } catch (const std::invalid_argument&) {
    out.why = fmt::format("no traced blocking runs of {} (batch {}) on 2 rank counts below {}",
                          c.model, c.global_batch, c.world_size);
    return out;
  }
  std::vector<std::string> shares;
  shares.reserve(at.size());
  for (const auto& a : at) shares.push_back(fmt::format("{:g}", a.share));
  out.found = true;
  out.source = fmt::format(
      "compute of {} on {} ranks (batch {:g} each, {:g} ranks' threads per core): each phase as "
      "share x (a + b x batch) through the blocking runs on {} ranks ({} per core): forward "
      "{:.4f} s, backward {:.4f} s, optimizer {:.4f} s, the slowest rank {:.4f} s after the mean, "
      "the p95 iteration's compute {:.4f} s over it, the slowest rank's iteration {:.4f} s over "
      "the ranks' mean",
      c.model, c.world_size, batch, share, fmt::join(used, ", "), fmt::join(shares, ", "),
      out.compute.forward_s, out.compute.backward_s, out.compute.optimizer_s,
      out.compute.straggler_s, out.compute.spread_p95_s, out.compute.slowest_excess_s);
  return out;
}

// The swept sizes from the largest at or below the smallest of `sizes` to the smallest at or
// above the largest (every swept size where `sizes` reach past the sweep).
std::vector<double> swept_around(const std::vector<double>& swept, const std::set<double>& sizes) {
  if (sizes.empty()) return {};
  std::vector<double> out;
  for (size_t i = 0; i < swept.size(); ++i) {
    const bool above_low = i + 1 == swept.size() || swept[i + 1] > *sizes.begin();
    const bool below_high = i == 0 || swept[i - 1] < *sizes.rbegin();
    if (above_low && below_high) out.push_back(swept[i]);
  }
  return out;
}

// Whether Open MPI runs `op` on f ranks as it does on n, each rank's part `bytes`. A formula that
// does not follow the library's choice of algorithm (allgather's: a ring) reads off a sweep the
// rate of the algorithm that ran it: on the emulated cluster at 100 Mbit/s, with OpenMPI's own
// 128 KiB TCP fragments, a rank took in Open MPI's allgather of 1 MiB at 11.2 MB/s on 2 hosts (one
// exchange) and 6.6 MB/s on 4 (recursive doubling; fragments-netns-4-100mbit-epyc-vm).
bool runs_alike(const std::string& op, const std::string& backend, int f, int n, double bytes) {
  return backend != "mpi" || op != "allgather" ||
         model::tuned_allgather(f, bytes) == model::tuned_allgather(n, bytes);
}

struct StrategyLink {
  model::FittedLink fitted;
  std::string source;
  bool apart = false;  // fitted to sweeps of its collectives made apart (model::Method::apart)
};

// The link a strategy's own sweeps on the smaller rank counts show, read through its formula,
// at the sizes the run sends as the model cuts them (its tensors, or its buckets): the
// per-tensor strategies' collectives as predict composes them (measured_cost_of), the bucketed
// engines' rings as the ring allreduce's sweep measured them. `share` holds each count's ranks'
// threads per core.
StrategyLink link_for_strategy(const SystemResults& s, const TrainRun& run,
                               const model::ComputeProfile& compute,
                               const std::map<int, double>& share) {
  const TrainConfig& c = run.record.config;
  const SyncMethod& method = find_method(c.sync);
  const bool per_tensor = method.engine == Engine::per_tensor;
  const std::string ring = c.backend == "gloo" ? "allreduce" : "ring_allreduce";
  std::set<double> sizes;
  for (const model::Bucket& b : model::buckets_of(compute, method_of(run))) sizes.insert(b.bytes);
  // Small messages, for the latency: from 64 B (16 floats: an element for each of up to 16
  // ranks, which a ring needs to take all its steps) to 256 B.
  constexpr double kSmallest = 64, kSmall = 256;
  std::vector<model::SweepPoint> small, sent, unlike;
  std::vector<int> used;
  std::vector<CollectiveCall> calls;  // the last count's, per tensor
  bool ring_steps = false;
  std::string first;
  for (const auto& [f, f_share] : share) {
    TrainConfig at = c;
    at.world_size = f;
    SweptCost swept = measured_cost_of(s, at, "");
    std::function<double(double)> cost = std::move(swept.cost);
    if (per_tensor) {
      if (!cost) continue;
      calls = std::move(swept.calls);
    }
    first = per_tensor ? calls.front().op : ring;
    // A ring at every size (the bucketed engines', Gloo's allreduce, the hand-written ring): its
    // steps carry S/n, whatever the size.
    ring_steps = first == ring;
    const model::MeasuredCost sweep = sweep_of(s, first, c.backend, f);
    if (!per_tensor && sweep.bytes.size() >= 2) {
      cost = [sweep](double b) { return sweep.time(b); };
    }
    if (!cost) continue;
    for (double bytes : sweep.bytes) {
      if (bytes >= kSmallest && bytes <= kSmall) small.push_back({f, bytes, cost(bytes), f_share});
    }
    if (!ring_steps) {
      // The sizes the sweeps measured, from the one at or below the smallest tensor to the one
      // at or above the largest: between two of them the library may switch algorithms (Open
      // MPI's tuned rules do), which a straight line between their times would hide.
      // A collective of every rank's tensor (allgather) was swept by the whole: its sizes are
      // n times the tensor's.
      const double whole = calls.front().times_ranks ? f : 1;
      std::set<double> swept_as;
      for (double bytes : sizes) swept_as.insert(bytes * whole);
      for (double swept : swept_around(sweep.bytes, swept_as)) {
        const double part = swept / whole;
        (runs_alike(first, c.backend, f, c.world_size, part) ? sent : unlike)
            .push_back({f, part, cost(part), f_share});
      }
    } else {
      // A ring's step carries S/n: on f ranks, the size whose steps carry what the run's do on
      // its own ranks (through a token bucket a step's size sets its speed).
      for (double bytes : sizes) {
        const double at = bytes * f / static_cast<double>(c.world_size);
        sent.push_back({f, at, cost(at), f_share});
      }
    }
    used.push_back(f);
  }
  // The rate from the rank counts where the library runs what it runs on the run's, where any did.
  std::set<int> rate_from;
  if (sent.empty()) sent.swap(unlike);
  for (const model::SweepPoint& p : sent) rate_from.insert(p.ranks);
  StrategyLink out;
  // The formula of what the sweeps timed: a method's collectives swept apart, each on its own.
  out.apart = calls.size() > 1;
  const std::string sync = c.sync, backend = c.backend;
  const double burst = bucket_between_hosts(s);
  // Gloo's ranks block while they wait; Open MPI's poll (the launcher's mpi_yield_when_idle
  // yields the core but keeps them runnable).
  const model::Waits waits = backend == "gloo" ? model::Waits::sleep : model::Waits::spin;
  const bool apart = out.apart;
  out.fitted = model::fit_link_across(
      small, sent,
      [per_tensor, sync, backend, apart](int n, double b, const model::Link& l) {
        return per_tensor ? model::tensor_sync_s(sync, n, b, l, backend, apart)
                          : model::ring_allreduce_s(n, b, l);
      },
      burst, /*relative=*/false, waits);
  std::vector<std::string> ops;
  ops.reserve(calls.size());
  for (const auto& call : calls) ops.push_back(call.op);
  out.source = fmt::format(
      "{}/{}: its formula fitted to the {} sweeps of {} on {} ranks: latency {:.1f} us per "
      "step and {:.1f} us {} {}, from messages of {:g} to {:g} B; rate "
      "{:.2f} MB/s at {}{}{}",
      c.sync, c.backend, c.backend == "mpi" ? "MPI" : "Gloo",
      per_tensor ? fmt::format("{}", fmt::join(ops, " + ")) : ring, fmt::join(used, ", "),
      out.fitted.link.latency_s * 1e6, std::abs(out.fitted.latency_per_share_s) * 1e6,
      out.fitted.latency_per_share_s < 0 ? "less" : "more",
      waits == model::Waits::spin ? "for each rank more on a core (its waiting ranks spin)"
      : out.fitted.latency_past_two_s > 0
          ? fmt::format("once the ranks outnumber the cores, and {:.1f} us more for each rank "
                        "more on a core past 2 (its waiting ranks sleep, but every rank of a "
                        "ring takes a turn in every step: its sweeps at 2 and more ranks a core "
                        "measured the wait grow)",
                        out.fitted.latency_past_two_s * 1e6)
          : "once the ranks outnumber the cores, however many more (its waiting ranks sleep)",
      kSmallest, kSmall, out.fitted.link.bytes_per_s / 1e6,
      !ring_steps ? "the swept sizes around its tensors'"
                  : fmt::format("the sizes whose ring steps carry what its {} do on {} ranks",
                                per_tensor ? "tensors'" : "buckets'", c.world_size),
      unlike.empty() ? ""
                     : fmt::format(", on {} ranks only, where Open MPI runs its {} as on {}",
                                   fmt::join(rate_from, ", "), first, c.world_size),
      burst > 0 ? fmt::format(", through the links' token bucket of {:.0f} KB", burst / 1e3) : "");
  return out;
}

}  // namespace

Extrapolation extrapolate_system(const SystemResults& s) {
  Extrapolation out;
  std::set<int> counts;
  for (const auto& r : s.runs) {
    if (r.kind == "train") counts.insert(static_cast<int>(r.record.config.world_size));
  }
  if (counts.size() < 3) return out;
  out.ranks = *counts.rbegin();
  out.from.assign(counts.begin(), std::prev(counts.end()));
  Prediction& p = out.prediction;
  p.label = s.label;
  std::set<std::string> done, noted;
  auto note = [&](const std::string& text) {
    if (noted.insert(text).second) p.notes.push_back(text);
  };
  std::map<std::tuple<std::string, int64_t>, Inputs> computes;
  for (const auto& run : s.runs) {
    const TrainConfig& c = run.record.config;
    if (run.kind != "train" || c.world_size != out.ranks || !done.insert(run.name).second) {
      continue;
    }
    const std::string label = report::engine_label(run);
    const SyncMethod& method = find_method(c.sync);
    if (!model::modelled(c.sync) || method.lossy || method.engine == Engine::local ||
        method.priced_as == PricedAs::two_level || c.slow_rank >= 0 ||
        !run.bottleneck_rate.empty()) {
      note(fmt::format("{}: not extrapolated (only the exact methods, with every rank at speed)",
                       label));
      continue;
    }
    const auto key = std::make_tuple(c.model, c.global_batch);
    auto known = computes.find(key);
    if (known == computes.end()) known = computes.emplace(key, compute_for(s, run, out.from)).first;
    const Inputs& compute = known->second;
    if (!compute.found) {
      note(fmt::format("{}: not extrapolated: {}", label, compute.why));
      continue;
    }
    note(compute.source);
    const StrategyLink link = link_for_strategy(s, run, compute.compute, compute.share);
    if (!link.fitted.found) {
      note(fmt::format("{}: not extrapolated: no sweeps of what it calls on {} ranks", label,
                       fmt::join(out.from, ", ")));
      continue;
    }
    note(link.source);
    model::Method m = method_of(run);
    // Priced as what its link was fitted to: its collectives apart, or as it calls them.
    m.apart = link.apart;
    for (auto f = out.from.rbegin(); f != out.from.rend(); ++f) {
      if (saves_what_a_rest_saved(s, m, *f, note)) break;
    }
    // Only buckets in flight together read a pair sweep, through the link fitted where it ran.
    for (auto f = out.from.rbegin(); m.in_flight > 1 && f != out.from.rend(); ++f) {
      if (takes_what_pairs_fitted(s, m, *f,
                                  link_for(s, c.backend, *f, run.bottleneck_rate, {}).link, note)) {
        break;
      }
    }
    if (c.sync_options.mode != SyncMode::blocking) {
      for (auto f = out.from.rbegin(); f != out.from.rend() && !m.comm_cpu.machine_cpu_s; ++f) {
        const CpuEstimate cpu = comm_cpu_for(s, run, *f);
        if (cpu.cpu.machine_cpu_s || f + 1 == out.from.rend()) note(cpu.source);
        m.comm_cpu = cpu.cpu;
      }
    }
    PredictedExperiment row = measured_row(s, run, label);
    row.predicted =
        predicted_for_repetitions(s, run, compute.compute, m, link.fitted.at(core_share(run)));
    row.predicted_p95_s = row.predicted.total_s() + compute.compute.spread_p95_s;
    p.rows.push_back(row);
  }
  // The spread as the methods measured it on the most ranks fitted on.
  p.p95_ratio_ranks = out.from.back();
  p.p95_without_others = p95_from_other_methods(p.rows, prediction_of(s).rows, p.p95_ratio_ranks);
  return out;
}

const Extrapolation& extrapolation_of(const SystemResults& s) {
  if (!s.extrapolation)
    s.extrapolation = std::make_shared<const Extrapolation>(extrapolate_system(s));
  return *s.extrapolation;
}

std::string extrapolation_text(const Extrapolation& e) {
  if (e.ranks == 0) return "";
  std::string text = fmt::format(
      "\nPast the ranks fitted on: the runs on {} ranks predicted from those on {} ranks only\n",
      e.ranks, fmt::join(e.from, ", "));
  for (const auto& n : e.prediction.notes) text += fmt::format("  {}\n", n);
  if (e.prediction.rows.empty()) return text + "  no experiment could be predicted\n";
  return text + rows_text(e.prediction) + errors_sentence(accuracy_of(e.prediction)) + "\n" +
         p95_sentence(e.prediction) + "\n";
}

}  // namespace dtbench
