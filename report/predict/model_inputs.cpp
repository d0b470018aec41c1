#include "report/predict/model_inputs.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "catalogue/methods.h"
#include "common/links.h"
#include "common/network_spec.h"
#include "model/cost_model.h"
#include "model/extrapolate.h"
#include "model/openmpi_tuned.h"
#include "model/parameter_shapes.h"
#include "model/what_if.h"
#include "record/record.h"
#include "report/read/select.h"
#include "report/traces/run_trace.h"
#include "stats/stats.h"

namespace dtbench {

namespace {

// Whether a sweep ran on `hosts` hosts (0: any). Results older than the hosts counter do not
// say: a sweep of theirs on one machine is read as on one host.
bool on_hosts(const CollectiveRun& c, int hosts) {
  return hosts == 0 || c.hosts == hosts || (c.hosts == 0 && hosts == 1 && c.machines == 1);
}

// Whether the method waits for its last buckets inside backward (DDP's Reducer): every rank then
// ends its backward together, so its traces cannot show a rank behind the others.
bool waits_in_backward(const std::string& sync) {
  const SyncMethod* m = method_named(sync);
  return m != nullptr && m->waits_in_backward;
}

}  // namespace

bool links_alike(const SystemResults& s) {
  const StatedRate stated = stated_rate(s.system);
  return stated.slowest_bytes_per_s == stated.link_bytes_per_s;
}

double priced_s(const CollectiveRun& c) {
  return c.backend == "gloo" && c.chained_s > 0 ? c.chained_s : c.time_s;
}

bool core_each(const SystemResults& s, const CollectiveRun& c) {
  const int cores = s.system.value("cores", 0);
  const int machines = std::max(1, c.machines);
  return cores > 0 && (c.ranks + machines - 1) / machines <= cores;
}

bool library_collective(const std::string& op) {
  return op != "ring_reduce" && op != "ring_allreduce";
}

bool priced_after_rest(const SystemResults& s, const CollectiveRun& rested) {
  if (rested.backend == "mpi") return library_collective(rested.op);
  return rested.backend == "gloo" && core_each(s, rested);
}

namespace {

// Gloo's chained sizes each at least their latency (sweep_of's per_tensor): `between` and
// `chained` its operations' two times by size, where both were measured; `rested` the sizes
// priced as swept after a rest.
void at_least_latency(const std::map<double, Mean>& between, const std::map<double, Mean>& chained,
                      const std::map<double, Mean>& rested, model::MeasuredCost& m) {
  bool small = false;
  for (const auto& [bytes, t] : between) {
    if (bytes > kBarrierSizes) continue;
    m.barrier_s = std::max(m.barrier_s, t.value() - chained.at(bytes).value());
    small = true;
  }
  if (!small) return;
  for (size_t i = 0; i < m.bytes.size(); ++i) {
    const auto b = between.find(m.bytes[i]);
    if (b == between.end() || rested.count(m.bytes[i]) > 0) continue;
    const double latency = b->second.value() - m.barrier_s;
    if (latency > m.seconds[i]) {
      m.seconds[i] = latency;
      m.latency_bytes.push_back(m.bytes[i]);
    }
  }
}

}  // namespace

model::MeasuredCost sweep_of(const SystemResults& s, const std::string& op,
                             const std::string& backend, int ranks, int machines, int hosts,
                             bool per_tensor) {
  const auto of_this = [&](const CollectiveRun& c) {
    return c.op == op && c.backend == backend && c.ranks == ranks &&
           (machines == 0 || c.machines == machines) && on_hosts(c, hosts);
  };
  // Each size's time, the mean over the sweep's repetitions, as priced_s reads them; but where
  // priced_after_rest, up to the links' token bucket, the rested sweep's where it measured the
  // size. And Gloo's operations with both times, chained and between barriers (per_tensor).
  std::map<double, Mean> by_size, after_rest, between, chained;
  for (const auto& c : s.collectives) {
    if (!of_this(c)) continue;
    const auto bytes = static_cast<double>(c.bytes);
    by_size[bytes].add(priced_s(c));
    if (c.backend == "gloo" && c.chained_s > 0) {
      between[bytes].add(c.time_s);
      chained[bytes].add(c.chained_s);
    }
  }
  const double burst = bucket_between_hosts(s);
  // A rested sweep refines the op's sweep, where there is one; it is none of its own (it stops
  // below the sizes the models send).
  if (!by_size.empty()) {
    for (const auto& c : s.rested) {
      if (!of_this(c) || !priced_after_rest(s, c) || (burst > 0 && c.bytes > burst)) continue;
      after_rest[static_cast<double>(c.bytes)].add(c.time_s);
    }
  }
  model::MeasuredCost m;
  for (const auto& [bytes, times] : after_rest) {
    by_size[bytes] = times;
    m.rested_bytes.push_back(bytes);
  }
  for (const auto& [bytes, times] : by_size) {
    m.bytes.push_back(bytes);
    m.seconds.push_back(times.value());
  }
  if (per_tensor) at_least_latency(between, chained, after_rest, m);
  model::read_out_noise(m);
  // Open MPI's reduce and broadcast change algorithm with the size (model/openmpi_tuned.h);
  // the messages count as alike where every link is (no bottleneck host).
  // reduce_broadcast is the two made one after the other.
  const bool reduce = op == "reduce" || op == "reduce_broadcast";
  const bool bcast = op == "broadcast" || op == "reduce_broadcast";
  if (backend == "mpi" && (reduce || bcast) && links_alike(s)) {
    m.messages = [reduce, bcast, ranks](double bytes) {
      const model::Link unit{0, 1, 0};  // a message of b bytes takes b s
      return ((reduce ? model::openmpi_reduce_s(ranks, bytes, unit) : 0) +
              (bcast ? model::openmpi_bcast_s(ranks, bytes, unit) : 0)) /
             bytes;
    };
  }
  return m;
}

namespace {

// Whether a swept size is within 4x of the sizes a run sends (every size, where not known).
bool within_window(SentSizes window, double bytes) {
  constexpr double kNear = 4;
  return !window.known() || (bytes >= window.smallest / kNear && bytes <= window.largest * kNear);
}

std::string window_text(SentSizes window) {
  return fmt::format(" within 4x of the {:.0f}-{:.0f} KB sent", window.smallest / 1e3,
                     window.largest / 1e3);
}

// A ring's sweep read through a link with a token bucket (model::Link): the latency per step
// from its smallest messages (64 to 256 B, under any bucket), the rate by least squares on
// relative errors, every size counting alike (model::fit_link_across on one rank count), from the
// sizes whose bytes through each link, a ring's 2(n-1)/n S, are more than the bucket holds: under
// it the bucket, which the operations before refilled, sets a chained operation's time, not the
// rate (the formula credits a step only what refills during its latency). With fewer than two
// such sizes, from 4 KiB up. Where that one rate misses a size past the bucket by more than 10%
// and the sizes a run sends are known, the rate from the sizes past the bucket within 4x of them
// (two at least). Not found without a latency and a rate.
struct ThroughBucket {
  model::FittedLink fit;
  size_t rate_sizes = 0;  // how many sizes gave the rate
  bool near_sent = false;
};

ThroughBucket fitted_through_bucket(const model::MeasuredCost& sweep, int ranks, double burst,
                                    SentSizes window) {
  constexpr double kOneRateHolds = 0.10;
  std::vector<model::SweepPoint> small, sent, past_bucket, near_sent;
  for (size_t i = 0; i < sweep.bytes.size(); ++i) {
    const model::SweepPoint p{ranks, sweep.bytes[i], sweep.seconds[i], 1};
    if (p.bytes >= 64 && p.bytes <= 256) small.push_back(p);
    if (p.bytes >= 4096) sent.push_back(p);
    if (model::ring_link_bytes(ranks, p.bytes) <= burst) continue;
    past_bucket.push_back(p);
    if (within_window(window, p.bytes)) near_sent.push_back(p);
  }
  const bool past = past_bucket.size() >= 2;
  if (past) sent.swap(past_bucket);
  ThroughBucket out;
  out.rate_sizes = sent.size();
  if (small.empty() || sent.size() < 2) return out;
  auto fit = [&](const std::vector<model::SweepPoint>& points) {
    return model::fit_link_across(small, points, model::ring_allreduce_s, burst,
                                  /*relative=*/true);
  };
  out.fit = fit(sent);
  if (!out.fit.found || !past || !window.known() || near_sent.size() < 2) return out;
  double worst = 0;
  for (const auto& p : sent) {
    worst = std::max(
        worst, std::abs(model::ring_allreduce_s(ranks, p.bytes, out.fit.link) / p.seconds - 1));
  }
  if (worst <= kOneRateHolds) return out;
  const model::FittedLink near = fit(near_sent);
  if (!near.found) return out;
  out.fit = near;
  out.rate_sizes = near_sent.size();
  out.near_sent = true;
  return out;
}

}  // namespace

double bucket_between_hosts(const SystemResults& s) {
  return stated_rate(s.system).slowest_burst_bytes;
}

LinkEstimate fitted_link(const SystemResults& s, const std::string& backend, int ranks,
                         int machines, int hosts, SentSizes sent) {
  LinkEstimate e;
  // Ranks on one host do not cross the emulated cluster's token buckets.
  const double burst = hosts == 1 ? 0 : bucket_between_hosts(s);
  for (const char* op : {"ring_allreduce", "allreduce"}) {
    if (e.found || (std::string(op) == "allreduce" && backend != "gloo")) continue;
    model::MeasuredCost sweep = sweep_of(s, op, backend, ranks, machines, hosts);
    std::vector<double> bytes, seconds;
    for (size_t i = 0; i < sweep.bytes.size(); ++i) {
      if (sweep.bytes[i] < 4096) continue;
      bytes.push_back(sweep.bytes[i]);
      seconds.push_back(sweep.seconds[i]);
    }
    if (bytes.size() < 2) continue;
    const std::string swept = fmt::format(
        "fitted to the {} {} sweep on {} ranks{}{} ({} sizes)", backend, op, ranks,
        machines == 1 ? " of one machine" : "", hosts > 1 ? ", one per host" : "", bytes.size());
    const ThroughBucket through =
        burst > 0 ? fitted_through_bucket(sweep, ranks, burst, sent) : ThroughBucket{};
    if (through.fit.found) {
      e.link = through.fit.link;
      e.found = true;
      e.source = fmt::format(
          "{} through the links' token bucket of {:.0f} KB, its latency from 64-256 B, its rate "
          "from the {} sizes past the bucket{}",
          swept, burst / 1e3, through.rate_sizes,
          through.near_sent ? window_text(sent) + " (one rate misses a size by more than 10%)"
                            : "");
      continue;
    }
    model::Line line = model::fit_line_relative(bytes, seconds);
    if (!(line.beta > 0)) continue;
    e.link = model::link_of_ring_fit(ranks, std::max(0.0, line.alpha), line.beta);
    e.found = true;
    e.source = swept;
  }
  return e;
}

// The backend's link: fitted to a ring allreduce's sweep on these ranks; else the emulated
// cluster's set rate. A bottleneck link caps the rate (every algorithm here waits for it).
LinkEstimate link_for(const SystemResults& s, const std::string& backend, int ranks,
                      const std::string& bottleneck_rate, SentSizes sent) {
  LinkEstimate e = fitted_link(s, backend, ranks, 0, 0, sent);
  const StatedRate stated = stated_rate(s.system);
  if (!e.found && stated.slowest_bytes_per_s > 0) {
    e.link = {0, stated.slowest_bytes_per_s};
    e.found = true;
    e.source = fmt::format("the rate stated, {}, latency taken as 0", stated.source);
  }
  if (e.found && !bottleneck_rate.empty()) {
    e.link.bytes_per_s = std::min(e.link.bytes_per_s, payload_bytes_per_s(bottleneck_rate));
    if (e.link.burst_bytes > 0) {
      e.link.burst_bytes = std::min(e.link.burst_bytes, burst_payload_bytes(bottleneck_rate));
    }
  }
  return e;
}

namespace {

// The machine CPU time per operation that a sweep of `op` on these ranks measured from 1 MiB up
// (the points of a straight line, which prices large buckets past the sizes swept), and how many
// machines it ran on.
struct CpuPoints {
  std::vector<double> bytes, seconds;
  int machines = 0;
  bool enough() const { return std::set<double>(bytes.begin(), bytes.end()).size() >= 2; }
  model::Line line() const { return model::fit_line_relative(bytes, seconds); }
};

CpuPoints cpu_points(const SystemResults& s, const std::string& op, const std::string& backend,
                     int ranks) {
  CpuPoints p;
  for (const auto& r : s.collectives) {
    if (r.op != op || r.backend != backend || r.ranks != ranks) continue;
    if (r.machine_cpu_s < 0 || r.machines < 1 || r.bytes < kMiB) continue;
    p.bytes.push_back(static_cast<double>(r.bytes));
    p.seconds.push_back(r.machine_cpu_s);
    p.machines = r.machines;
  }
  return p;
}

// The CPU of an operation of b bytes: the line from 1 MiB up (never below zero); under the
// smallest size it was fitted to, in proportion to the bytes. What a sweep measures under 1 MiB
// is mostly its waiting: an operation that takes its latency keeps MPI's progress thread (or
// Gloo's) polling on a machine with nothing else to run, and a rank's compute, runnable, takes
// that CPU back. The line's intercept is no fixed cost either.
std::function<double(double)> cpu_of(const CpuPoints& points) {
  const model::Line line = points.line();
  const double smallest = *std::min_element(points.bytes.begin(), points.bytes.end());
  const auto on_line = [line](double b) { return std::max(0.0, line.alpha + line.beta * b); };
  return [on_line, smallest](double b) {
    return b >= smallest ? on_line(b) : on_line(smallest) * b / smallest;
  };
}

}  // namespace

CpuEstimate comm_cpu_for(const SystemResults& s, const TrainRun& run, int swept_ranks) {
  const TrainConfig& c = run.record.config;
  const int swept = swept_ranks > 0 ? swept_ranks : static_cast<int>(c.world_size);
  CpuPoints points;
  std::string sweep;
  for (const auto& [op, backend] :
       {std::pair<std::string, std::string>{"iallreduce", c.backend}, {"allreduce", "gloo"}}) {
    points = cpu_points(s, op, backend, swept);
    if (points.enough()) {
      sweep = fmt::format("{}'s {} sweep", backend == "mpi" ? "MPI" : "Gloo", op);
      break;
    }
  }
  if (sweep.empty()) {
    return {{}, "no iallreduce or Gloo allreduce sweep with the machines' CPU time on these ranks"};
  }
  const int cores = run.record.ranks.empty() ? 0 : run.record.ranks[0].usage.cores;
  const int threads = std::max(1, run.record.threads);
  // The run's ranks per machine: as the sweep placed its own, all on one machine or spread.
  const int swept_per_machine = swept / points.machines;
  const int per_machine = points.machines == 1 ? static_cast<int>(c.world_size) : swept_per_machine;
  if (cores < 1 || per_machine * threads < cores) {
    return {{},
            fmt::format("{} ranks of {} threads per machine leave cores free: "
                        "communication takes no CPU from compute",
                        per_machine, threads)};
  }
  const model::Line line = points.line();
  CpuEstimate e;
  e.cpu.cores = cores;
  e.cpu.threads = per_machine * threads;
  e.cpu.machine_cpu_s = cpu_of(points);
  std::string scaled;
  if (swept != c.world_size) {
    // A ring sends and receives 2(n-1)/n S per rank: what a machine's stack carries.
    const auto carried = [](int n, int on_machine) { return on_machine * (n - 1.0) / n; };
    const double ratio =
        carried(static_cast<int>(c.world_size), per_machine) / carried(swept, swept_per_machine);
    e.cpu.machine_cpu_s = [ratio, measured = e.cpu.machine_cpu_s](double b) {
      return ratio * measured(b);
    };
    scaled = fmt::format(
        "; swept on {} ranks, scaled by {:.2f} for the bytes {} ranks' rings carry through "
        "each machine",
        swept, ratio, c.world_size);
  }
  e.source = fmt::format(
      "communication's CPU: {} ranks of {} threads fill each machine's {} cores; an allreduce "
      "costs a machine {:.3f} s of CPU per 10 MB ({}, {} sizes from 1 MiB; under it, in "
      "proportion to the bytes{})",
      per_machine, threads, cores, line.alpha + line.beta * 1e7, sweep, points.bytes.size(),
      scaled);
  return e;
}

HookEstimate hook_for(const SystemResults& s, const TrainRun& run) {
  const TrainConfig& c = run.record.config;
  const SyncMethod& method = find_method(c.sync);
  if (method.engine != Engine::hooked || !method.lossy || method.priced_by.empty()) return {};
  // The sweep ran each hook with the default options, on the links as they were.
  if (!run.bottleneck_rate.empty() || !same_swept_options(c.sync_options, SyncOptions{})) {
    return {};
  }
  const std::string& op = method.priced_by.front().op;
  model::MeasuredCost time = sweep_of(s, op, c.backend, c.world_size);
  const CpuPoints cpu = cpu_points(s, op, c.backend, c.world_size);
  if (time.bytes.size() < 2 || !cpu.enough()) return {};
  const model::Line line = cpu.line();
  HookEstimate e;
  e.hook.seconds = [time](double b) { return time.time(b); };
  e.hook.machine_cpu_s = cpu_of(cpu);
  e.source = fmt::format(
      "{}: each bucket takes what the {} sweep measured ({} sizes; compressing included), and "
      "costs a machine {:.3f} s of CPU per 10 MB of bucket",
      c.sync, op, time.bytes.size(), line.alpha + line.beta * 1e7);
  return e;
}

SweptCost measured_cost_of(const SystemResults& s, const TrainConfig& c,
                           const std::string& bottleneck_rate) {
  const SyncMethod& method = find_method(c.sync);
  if (method.engine != Engine::per_tensor || !bottleneck_rate.empty()) return {};
  // The catalogue's priced_by where every one was swept here, else its or_priced_by.
  std::vector<model::MeasuredCost> sweeps;
  const auto swept = [&](const std::vector<CollectiveCall>& calls) {
    sweeps.clear();
    for (const CollectiveCall& call : calls) {
      sweeps.push_back(sweep_of(s, call.op, c.backend, c.world_size, 0, 0, /*per_tensor=*/true));
      if (sweeps.back().bytes.size() < 2) return false;
    }
    return !calls.empty();
  };
  const std::vector<CollectiveCall>* calls = &method.priced_by;
  if (!swept(*calls)) {
    calls = &method.or_priced_by;
    if (!swept(*calls)) return {};
  }
  std::vector<std::pair<model::MeasuredCost, double>> parts;
  std::vector<std::string> noisy, latency;
  for (size_t i = 0; i < calls->size(); ++i) {
    const CollectiveCall& call = (*calls)[i];
    model::MeasuredCost& m = sweeps[i];
    if (!m.noisy_bytes.empty()) {
      noisy.push_back(fmt::format("{}'s {} sweep on {} ranks at {} B", c.backend, call.op,
                                  c.world_size, fmt::join(m.noisy_bytes, ", ")));
    }
    if (!m.latency_bytes.empty()) {
      latency.push_back(fmt::format(
          "{}'s {} sweep on {} ranks at {} B, between barriers less the {:.2f} ms its barrier left "
          "in each",
          c.backend, call.op, c.world_size, fmt::join(m.latency_bytes, ", "), m.barrier_s * 1e3));
    }
    parts.emplace_back(std::move(m), call.times_ranks ? c.world_size : 1);
  }
  SweptCost out;
  out.calls = *calls;
  out.rested_up_to_bytes = std::numeric_limits<double>::infinity();
  for (const auto& [m, scale] : parts) {
    const double largest = m.rested_bytes.empty() ? 0 : m.rested_bytes.back() / scale;
    out.rested_up_to_bytes = std::min(out.rested_up_to_bytes, largest);
  }
  out.cost = [parts](double bytes) {
    double t = 0;
    for (const auto& [m, scale] : parts) t += m.time(bytes * scale);
    return t;
  };
  if (!noisy.empty()) {
    out.noise = fmt::format(
        "read as noise, each priced as the larger size that took least: {} (more than {:g}x a "
        "larger size's time)",
        fmt::join(noisy, "; "), model::kNoiseFactor);
  }
  if (!latency.empty()) {
    out.latency = fmt::format(
        "priced at one operation's latency where it is longer than chained (a chain of one size "
        "overlaps calls that a tensor's next call, of another size, does not): {}",
        fmt::join(latency, "; "));
  }
  return out;
}

namespace {

// How many of a run's ranks share each host, from the hosts its record names; 0 when a rank's
// host is not recorded or the hosts do not carry equally many.
int ranks_per_host(const TrainRun& run) {
  std::map<std::string, int> on;
  for (const auto& r : run.record.ranks) ++on[r.host];
  if (on.empty() || on.count("") > 0) return 0;
  const int per = on.begin()->second;
  for (const auto& [host, n] : on) {
    if (n != per) return 0;
  }
  return per;
}

}  // namespace

HostLevels host_levels_for(const SystemResults& s, const TrainRun& run) {
  const TrainConfig& c = run.record.config;
  HostLevels h;
  const int given = c.sync_options.ranks_per_host;
  h.per_host = given > 0 ? given : ranks_per_host(run);
  if (h.per_host < 1) {
    h.missing = "its ranks' hosts are not recorded or do not carry equally many ranks";
    return h;
  }
  if (h.per_host == 1) return h;  // no level within a host
  LinkEstimate inside = fitted_link(s, c.backend, h.per_host, 1, 1);
  if (!inside.found) {
    h.missing = fmt::format(
        "{} ranks share each host, and no {} ring_allreduce sweep on {} ranks of one machine "
        "gives the link within a host",
        h.per_host, c.backend, h.per_host);
    return h;
  }
  h.inside = inside.link;
  h.source = fmt::format(
      "{} ranks per host; the link within a host: {}: latency {:.1f} us, rate "
      "{:.1f} MB/s",
      h.per_host, inside.source, inside.link.latency_s * 1e6, inside.link.bytes_per_s / 1e6);
  const int hosts = c.world_size / h.per_host;
  if (hosts > 1) h.leaders = fitted_link(s, c.backend, hosts, 0, hosts);
  h.source += h.leaders.found
                  ? fmt::format("; the leaders' ring: {}: latency {:.1f} us, rate {:.1f} MB/s",
                                h.leaders.source, h.leaders.link.latency_s * 1e6,
                                h.leaders.link.bytes_per_s / 1e6)
                  : fmt::format(
                        "; the leaders' ring on the link of all {} ranks (no ring_allreduce "
                        "sweep on {} ranks, one per host)",
                        c.world_size, hosts);
  return h;
}

namespace {

// Per timed iteration, the slowest rank's compute (every phase but sync, from the ranks' own
// phase times); the 95th percentile's excess over the mean. 0 where the record has no per-rank
// phases.
double compute_spread_p95_s(const TrainRun& run) {
  std::vector<double> slowest;
  for (const auto& rank : run.record.ranks) {
    std::vector<double> compute;
    for (size_t p = 0; p < kPhaseCount; ++p) {
      if (std::string_view(kPhaseNames[p]) == "sync") continue;
      const std::vector<double> t = window(rank.phase_s[p], kTimedFirst, kTimedLast);
      compute.resize(std::max(compute.size(), t.size()), 0.0);
      for (size_t i = 0; i < t.size(); ++i) compute[i] += t[i];
    }
    slowest.resize(std::max(slowest.size(), compute.size()), 0.0);
    for (size_t i = 0; i < compute.size(); ++i) slowest[i] = std::max(slowest[i], compute[i]);
  }
  if (slowest.empty()) return 0;
  return std::max(0.0, percentile(slowest, 95) - summarize(slowest).mean);
}

// How much longer than the ranks' mean the iteration counted (the slowest rank's) is, over the
// timed iterations: the mean of total_s less the sum of the phases' means, phases_s.
double slowest_excess_s(const TrainRun& run, double phases_s) {
  const std::vector<double> t = report::timed(run);
  return t.empty() ? 0 : std::max(0.0, summarize(t).mean - phases_s);
}

}  // namespace

bool waits_idle_cores(const SystemResults& s, const TrainRun& run) {
  const auto& ranks = run.record.ranks;
  if (ranks.empty() || ranks[0].usage.cores < 1) return false;
  std::set<std::string> hosts;
  for (const auto& rank : ranks) hosts.insert(rank.host);
  const size_t machines = s.system.value("emulated_cluster", false) ? 1 : hosts.size();
  const auto threads =
      static_cast<int64_t>(ranks.size() / machines) * std::max(1, run.record.threads);
  return threads <= ranks[0].usage.cores;
}

// The compute of runs like r (model, batch, ranks) that do not overlap: blocking mode, no
// slowed rank, no bottleneck, an exact method (local SGD, blocking by default, lets its ranks
// drift apart between averagings). Median over them of each phase; ready times from their
// traces.
MeasuredCompute profile_for(const SystemResults& s, const TrainRun& r) {
  const TrainConfig& c = r.record.config;
  return compute_of(s, c.model, c.global_batch, c.world_size, c.backend, waits_idle_cores(s, r));
}

MeasuredCompute compute_of(const SystemResults& s, const std::string& model, int64_t batch,
                           int ranks, const std::string& backend, bool paced_by_backend) {
  MeasuredCompute e;
  std::array<std::vector<double>, kPhaseCount> phase;
  std::vector<double> spread;
  // Every run's forward: [any backend, over `backend`].
  std::array<std::vector<double>, 2> forward_everywhere;
  // The slowest rank's excess in the blocking runs whose ranks synchronise every iteration (not
  // `none`, whose ranks drift apart): [any backend, over `backend`].
  std::array<std::vector<double>, 2> excess;
  TraceFacts ready;
  int runs = 0;
  for (const auto& other : s.runs) {
    const TrainConfig& c = other.record.config;
    if (other.kind != "train" || c.slow_rank >= 0 || !other.bottleneck_rate.empty() ||
        c.model != model || c.global_batch != batch || c.world_size != ranks) {
      continue;
    }
    // Forward is the same computation whatever the method, wherever no communication runs
    // beside it (all but stale mode): every such run measures the machine's pace.
    if (c.sync_options.mode != SyncMode::stale) {
      forward_everywhere[0].push_back(report::phase_mean(other, 1));
      if (c.backend == backend) forward_everywhere[1].push_back(forward_everywhere[0].back());
    }
    if (c.sync_options.mode != SyncMode::blocking || is_lossy(c.sync)) continue;
    ++runs;
    double phases = 0;
    for (size_t i = 0; i < kPhaseCount; ++i) {
      phase[i].push_back(report::phase_mean(other, i));
      phases += phase[i].back();
    }
    if (c.sync != "none") {
      excess[0].push_back(slowest_excess_s(other, phases));
      if (c.backend == backend) excess[1].push_back(excess[0].back());
    }
    spread.push_back(compute_spread_p95_s(other));
    add_facts(trace_of(other).facts, ready);
  }
  if (runs == 0) {
    e.source = "no blocking run of the same model, batch and ranks";
    return e;
  }
  model::ComputeProfile& p = e.profile;
  // The blocking runs' compute at the pace of every run's forward: a few blocking runs (a
  // study's one) may have met the machine slower or faster than the rest. Paced by the backend,
  // at the pace of the runs over it (waits_idle_cores).
  const double blocking_forward = summarize(phase[1]).median;
  const size_t paced_on = paced_by_backend && !forward_everywhere[1].empty() ? 1 : 0;
  const std::vector<double>& paced = forward_everywhere[paced_on];
  const double pace = blocking_forward > 0 ? summarize(paced).median / blocking_forward : 1;
  p.data_s = summarize(phase[0]).median;
  p.forward_s = pace * blocking_forward;
  p.backward_s = pace * summarize(phase[2]).median;
  p.optimizer_s = pace * summarize(phase[4]).median;
  const bool complete = !ready.count.empty() && std::all_of(ready.count.begin(), ready.count.end(),
                                                            [](int n) { return n > 0; });
  if (!complete) {
    e.source = fmt::format(
        "{} blocking runs, but no trace of when their gradients are ready "
        "(run them with \"trace\": true)",
        runs);
    return e;
  }
  for (size_t i = 0; i < ready.count.size(); ++i) {
    p.tensor_bytes.push_back(ready.bytes[i]);
    p.ready_s.push_back(ready.sum[i] / ready.count[i] * p.backward_s);
  }
  p.straggler_s = summarize(ready.straggler_s).median;
  p.spread_p95_s = summarize(spread).median;
  // Each backend's threads keep the ranks apart their own way: its runs where there are any.
  const size_t on = excess[1].empty() ? 0 : 1;
  p.slowest_excess_s = excess[on].empty() ? 0 : summarize(excess[on]).median;
  const std::string excess_from =
      excess[on].empty() ? "no blocking run that synchronises"
                         : fmt::format("the median over {} blocking runs{}", excess[on].size(),
                                       on == 1 ? fmt::format(" over {}", backend) : "");
  for (const auto& parameter : model::builtin_parameters(model)) {
    p.shapes.push_back(parameter.shape);
  }
  e.found = true;
  e.source = fmt::format(
      "compute of {} ({} ranks, batch {}): the median of {} blocking runs{}, forward {:.3f} s, "
      "backward {:.3f} s, optimizer {:.3f} s; {} gradients' ready times from their traces; the "
      "slowest rank ends its compute {:.3f} s after the ranks' mean (the median over their "
      "traces of the mean over iterations); the slowest rank's iteration is {:.4f} s longer than "
      "the ranks' mean ({})",
      model, ranks, batch, runs,
      std::abs(pace - 1) < 5e-4
          ? ""
          : fmt::format(" at the pace of the {} runs' forward{} ({:+.1f}%)", paced.size(),
                        paced_on == 1 ? " over " + backend : "", 100 * (pace - 1)),
      p.forward_s, p.backward_s, p.optimizer_s, p.ready_s.size(), p.straggler_s, p.slowest_excess_s,
      excess_from);
  return e;
}

MeasuredCompute with_overlap_wait(const SystemResults& s, const TrainConfig& c,
                                  MeasuredCompute compute, const std::string& own) {
  if (!compute.found || c.sync_options.mode != SyncMode::overlap || c.world_size < 2) {
    return compute;
  }
  // A method whose traces cannot show the wait takes that of every exact method whose can.
  const bool borrowed = waits_in_backward(c.sync);
  std::vector<double> waits;
  std::set<std::string> methods;
  std::set<double> caps;
  for (const auto& other : s.runs) {
    const TrainConfig& o = other.record.config;
    const bool source = borrowed ? !waits_in_backward(o.sync) && !is_lossy(o.sync)
                                 : o.sync == c.sync && o.backend == c.backend;
    if (!source || other.kind != "train" || o.sync_options.mode != SyncMode::overlap ||
        o.model != c.model || o.global_batch != c.global_batch || o.world_size != c.world_size ||
        o.slow_rank >= 0 || !other.bottleneck_rate.empty() || other.name == own) {
      continue;
    }
    const Stragglers& st = trace_of(other).stragglers;
    if (st.straggler < 0) continue;
    waits.push_back(st.over_mean_s);
    methods.insert(borrowed ? o.sync + "/" + o.backend : o.sync);
    caps.insert(o.sync_options.bucket_mb);
  }
  if (waits.empty()) return compute;
  compute.profile.straggler_s = summarize(waits).median;
  compute.source += fmt::format(
      "; overlapping its communication, the slowest rank ends its compute {:.3f} s after the "
      "ranks' mean (the median over {} traced {} runs at {} MB{})",
      compute.profile.straggler_s, waits.size(), fmt::join(methods, ", "), fmt::join(caps, ", "),
      borrowed
          ? fmt::format("; {} waits inside backward, where its own traces show every rank ending "
                        "together",
                        c.sync)
          : "");
  return compute;
}

MeasuredCompute measured_compute(const SystemResults& s, const std::string& model) {
  // One blocking run of each size (ranks, then global batch), the largest first.
  std::map<std::pair<int, int64_t>, const TrainRun*, std::greater<>> by_size;
  for (const auto& r : s.runs) {
    const TrainConfig& c = r.record.config;
    if (r.kind == "train" && c.sync_options.mode == SyncMode::blocking && c.model == model) {
      by_size.emplace(std::pair{c.world_size, c.global_batch}, &r);
    }
  }
  // None found: the largest one's reason.
  MeasuredCompute first{false, {}, "no blocking run of " + model};
  for (const auto& [size, run] : by_size) {
    MeasuredCompute m = profile_for(s, *run);
    if (m.found) return m;
    if (size == by_size.begin()->first) first = std::move(m);
  }
  return first;
}

}  // namespace dtbench
