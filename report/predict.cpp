#include "report/predict.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "cluster.h"
#include "model/parameter_shapes.h"
#include "model/what_if.h"
#include "report/figures.h"
#include "sync/grad_sync.h"
#include "train/record.h"
#include "train/stats.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;
using model::Phases;

constexpr double kBytesPerMiB = 1024.0 * 1024;

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

struct LinkEstimate {
  bool found = false;
  model::Link link;
  std::string source;
};

// The TCP payload a link shaped to `rate` ("1gbit") carries.
double set_rate_bytes_per_s(const std::string& rate) {
  return model::tcp_link(parse_rate(rate) / 1e9, 0).bytes_per_s;
}

// Whether a sweep ran on `hosts` hosts (0: any). Results older than the hosts counter do not
// say: a sweep of theirs on one machine is read as on one host.
bool on_hosts(const CollectiveRun& c, int hosts) {
  return hosts == 0 || c.hosts == hosts || (c.hosts == 0 && hosts == 1 && c.machines == 1);
}

// One collective's sweep: (bytes, seconds) of op over backend on this many ranks (and, when
// machines or hosts > 0, on that many machines or hosts), by size.
model::MeasuredCost sweep_of(const SystemResults& s, const std::string& op,
                             const std::string& backend, int ranks, int machines = 0,
                             int hosts = 0) {
  std::map<double, double> by_size;
  for (const auto& c : s.collectives) {
    if (c.op == op && c.backend == backend && c.ranks == ranks &&
        (machines == 0 || c.machines == machines) && on_hosts(c, hosts)) {
      by_size[static_cast<double>(c.bytes)] = c.time_s;
    }
  }
  model::MeasuredCost m;
  for (const auto& [bytes, seconds] : by_size) {
    m.bytes.push_back(bytes);
    m.seconds.push_back(seconds);
  }
  return m;
}

// The link a ring allreduce's sweep on these ranks (and machines or hosts, when > 0) shows, read
// as a ring (the hand-written one, whose algorithm is known; Gloo's own allreduce is a ring
// too), sizes from 4 KiB.
LinkEstimate fitted_link(const SystemResults& s, const std::string& backend, int ranks,
                         int machines, int hosts = 0) {
  LinkEstimate e;
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
    model::Line line = model::fit_line_relative(bytes, seconds);
    if (!(line.beta > 0)) continue;
    e.link = model::link_of_ring_fit(ranks, std::max(0.0, line.alpha), line.beta);
    e.found = true;
    e.source = fmt::format("fitted to the {} {} sweep on {} ranks{}{} ({} sizes)", backend, op,
                           ranks, machines == 1 ? " of one machine" : "",
                           hosts > 1 ? ", one per host" : "", bytes.size());
  }
  return e;
}

// The backend's link: fitted to a ring allreduce's sweep on these ranks; else the emulated
// cluster's set rate. A bottleneck link caps the rate (every algorithm here waits for it).
LinkEstimate link_for(const SystemResults& s, const std::string& backend, int ranks,
                      const std::string& bottleneck_rate) {
  LinkEstimate e = fitted_link(s, backend, ranks, 0);
  const auto& network = s.system.value("network", nlohmann::json::object());
  if (!e.found && network.is_object() && network.contains("spec")) {
    const auto& spec = network["spec"];
    std::string rate = spec.value("rate", "none");
    if (rate != "none") {
      e.link = {0, set_rate_bytes_per_s(rate)};
      e.found = true;
      e.source = fmt::format("the emulated cluster's set rate, {}, latency taken as 0", rate);
      if (spec.value("bottleneck_host", -1) >= 0) {  // the whole cluster waits for that host
        const std::string slow = spec.value("bottleneck_rate", rate);
        e.link.bytes_per_s = std::min(e.link.bytes_per_s, set_rate_bytes_per_s(slow));
        e.source +=
            fmt::format(", capped by host {}'s {}", spec.value("bottleneck_host", -1), slow);
      }
    }
  }
  if (e.found && !bottleneck_rate.empty()) {
    e.link.bytes_per_s = std::min(e.link.bytes_per_s, set_rate_bytes_per_s(bottleneck_rate));
  }
  return e;
}

// The machine CPU time per operation that a sweep of `op` on these ranks measured, from 1 MiB
// (shorter operations are a few of the kernel's 10 ms ticks), and how many machines it ran on.
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
    if (r.machine_cpu_s < 0 || r.machines < 1 || r.bytes < static_cast<int64_t>(kBytesPerMiB)) {
      continue;
    }
    p.bytes.push_back(static_cast<double>(r.bytes));
    p.seconds.push_back(r.machine_cpu_s);
    p.machines = r.machines;
  }
  return p;
}

std::function<double(double)> at_least_zero(const model::Line& line) {
  return [line](double b) { return std::max(0.0, line.alpha + line.beta * b); };
}

// What communication asks of the CPU, where the machine's ranks keep its cores busy: a straight
// line through the machine CPU time per operation (cpu_points) of the run's own backend's
// `iallreduce`, the call the overlapping engines make, waited for by a caller that sleeps as a
// computing rank does; where a directory has none (older results), Gloo's blocking allreduce,
// whose threads sleep too (MPI's blocking calls poll, which would count as work).
struct CpuEstimate {
  model::CommCpu cpu;
  std::string source;
};

CpuEstimate comm_cpu_for(const SystemResults& s, const TrainRun& run) {
  const TrainConfig& c = run.record.config;
  CpuPoints points;
  std::string sweep;
  for (const auto& [op, backend] :
       {std::pair<std::string, std::string>{"iallreduce", c.backend}, {"allreduce", "gloo"}}) {
    points = cpu_points(s, op, backend, c.world_size);
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
  const int per_machine = c.world_size / points.machines;
  if (cores < 1 || per_machine * threads < cores) {
    return {{},
            fmt::format("{} ranks of {} threads per machine leave cores free: "
                        "communication takes no CPU from compute",
                        per_machine, threads)};
  }
  const model::Line line = points.line();
  CpuEstimate e;
  e.cpu.cores = cores;
  e.cpu.machine_cpu_s = at_least_zero(line);
  e.source = fmt::format(
      "communication's CPU: {} ranks of {} threads fill each machine's {} cores; an allreduce "
      "costs a machine {:.3f} s of CPU per 10 MB ({}, {} sizes from 1 MiB)",
      per_machine, threads, cores, line.alpha + line.beta * 1e7, sweep, points.bytes.size());
  return e;
}

// A lossy hook's bucket as the sweep of the hook on these ranks and backend measured it
// (bench_collectives' fp16_hook, powersgd_hook, topk_hook: compressing, its collectives and
// decompressing, with the hooks' defaults): its time between the swept sizes, and a straight
// line through the machine CPU time (cpu_points). None for a run with other options than the
// sweep's, or a bottleneck the sweep did not have.
struct HookEstimate {
  model::MeasuredHook hook;
  std::string source;
};

HookEstimate hook_for(const SystemResults& s, const TrainRun& run) {
  const TrainConfig& c = run.record.config;
  const SyncOptions swept;
  if (c.sync != "fp16" && c.sync != "powersgd" && c.sync != "topk") return {};
  if (!run.bottleneck_rate.empty() || c.topk_fraction != swept.topk_fraction ||
      c.powersgd_rank != swept.powersgd_rank) {
    return {};
  }
  const std::string op = c.sync + "_hook";
  model::MeasuredCost time = sweep_of(s, op, c.backend, c.world_size);
  const CpuPoints cpu = cpu_points(s, op, c.backend, c.world_size);
  if (time.bytes.size() < 2 || !cpu.enough()) return {};
  const model::Line line = cpu.line();
  HookEstimate e;
  e.hook.seconds = [time](double b) { return time.time(b); };
  e.hook.machine_cpu_s = at_least_zero(line);
  e.source = fmt::format(
      "{}: each bucket takes what the {} sweep measured ({} sizes; compressing included), and "
      "costs a machine {:.3f} s of CPU per 10 MB of bucket",
      c.sync, op, time.bytes.size(), line.alpha + line.beta * 1e7);
  return e;
}

// The collectives a per-tensor strategy calls for each tensor of S bytes, each with the size
// its sweep is labelled by (allgather's is the gathered n S).
struct Call {
  std::string op;
  bool times_ranks = false;
};
const std::map<std::string, std::vector<Call>>& calls_of() {
  static const std::map<std::string, std::vector<Call>> table = {
      {"gather_scatter", {{"gather_scatter"}}}, {"reduce_broadcast", {{"reduce"}, {"broadcast"}}},
      {"allreduce", {{"allreduce"}}},           {"allgather", {{"allgather", true}}},
      {"ring_reduce", {{"ring_reduce"}}},       {"ring_allreduce", {{"ring_allreduce"}}},
  };
  return table;
}

// The strategy's per-tensor cost from the sweeps of the collectives it calls, when every one
// was swept on these ranks and backend (and no bottleneck changed the links since); else none.
std::function<double(double)> measured_cost_of(const SystemResults& s, const TrainConfig& c,
                                               const std::string& bottleneck_rate) {
  auto it = calls_of().find(c.sync);
  if (it == calls_of().end() || !bottleneck_rate.empty()) return {};
  std::vector<std::pair<model::MeasuredCost, double>> parts;
  for (const Call& call : it->second) {
    model::MeasuredCost m = sweep_of(s, call.op, c.backend, c.world_size);
    if (m.bytes.size() < 2) return {};
    parts.emplace_back(std::move(m), call.times_ranks ? c.world_size : 1);
  }
  return [parts](double bytes) {
    double t = 0;
    for (const auto& [m, scale] : parts) t += m.time(bytes * scale);
    return t;
  };
}

// What the blocking runs' traces say: when each gradient is ready, as a fraction of its
// backward (per parameter, summed over ranks and iterations), and per run how much longer the
// slowest rank's compute (data, forward and backward) took than the ranks' mean (the record
// keeps each phase's mean over the ranks), the mean over iterations (mean_straggler_s). Nothing
// is added for a missing file or one without them.
struct TraceFacts {
  std::vector<double> sum, bytes;
  std::vector<int> count;
  std::vector<double> straggler_s;
};

void add_trace(const std::string& path, TraceFacts& out) {
  std::ifstream in(path);
  if (!in) return;
  nlohmann::json trace = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!trace.is_object() || !trace.contains("traceEvents")) return;
  out.straggler_s.push_back(mean_straggler_s(trace["traceEvents"]));
  std::map<int, std::vector<std::pair<double, double>>> backward;  // rank -> [begin, end)
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") == "X" && e.value("name", "") == "backward") {
      double ts = e.value("ts", 0.0);
      backward[e.value("pid", 0)].emplace_back(ts, ts + e.value("dur", 0.0));
    }
  }
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("ph", "") != "i" || e.value("name", "") != "gradient ready") continue;
    const double ts = e.value("ts", 0.0);
    const auto& args = e.value("args", nlohmann::json::object());
    const size_t p = args.value("parameter", size_t{0});
    for (const auto& [begin, end] : backward[e.value("pid", 0)]) {
      if (ts < begin || ts > end || end <= begin) continue;
      if (out.sum.size() <= p) {
        out.sum.resize(p + 1);
        out.bytes.resize(p + 1);
        out.count.resize(p + 1);
      }
      out.sum[p] += (ts - begin) / (end - begin);
      out.bytes[p] = args.value("bytes", 0.0);
      ++out.count[p];
    }
  }
}

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

// Where hierarchical's two levels run: the ranks per host (as the run grouped them: its
// --ranks-per-host, else the hosts its record names), the link within a host (a ring
// allreduce's sweep on that many ranks of one host and machine) and, where swept, the leaders'
// (a ring allreduce's sweep on one rank of each host). An empty `missing` when found.
struct HostLevels {
  int per_host = 0;
  model::Link inside;
  LinkEstimate leaders;  // not found: the leaders' ring on the link of all the ranks
  std::string source, missing;
};

HostLevels host_levels_for(const SystemResults& s, const TrainRun& run) {
  const TrainConfig& c = run.record.config;
  HostLevels h;
  h.per_host = c.ranks_per_host > 0 ? c.ranks_per_host : ranks_per_host(run);
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

bool lossy(const std::string& sync) {
  for (const auto& spec : sync_registry()) {
    if (spec.name == sync) return spec.lossy;
  }
  return false;
}

// The compute of runs like r (model, batch, ranks) that do not overlap: blocking mode, no
// slowed rank, no bottleneck, an exact method (local SGD, blocking by default, lets its ranks
// drift apart between averagings). Median over them of each phase; ready times from their
// traces.
MeasuredCompute profile_for(const SystemResults& s, const TrainRun& r) {
  MeasuredCompute e;
  std::array<std::vector<double>, kPhaseCount> phase;
  TraceFacts ready;
  int runs = 0;
  for (const auto& other : s.runs) {
    const TrainConfig& c = other.record.config;
    if (other.kind != "train" || c.mode != "blocking" || lossy(c.sync) || c.slow_rank >= 0 ||
        !other.bottleneck_rate.empty() || c.model != r.record.config.model ||
        c.global_batch != r.record.config.global_batch ||
        c.world_size != r.record.config.world_size) {
      continue;
    }
    ++runs;
    for (size_t i = 0; i < kPhaseCount; ++i) phase[i].push_back(report::phase_mean(other, i));
    if (!other.dir.empty()) add_trace((fs::path(other.dir) / "trace.json").string(), ready);
  }
  if (runs == 0) {
    e.source = "no blocking run of the same model, batch and ranks";
    return e;
  }
  model::ComputeProfile& p = e.profile;
  p.data_s = summarize(phase[0]).median;
  p.forward_s = summarize(phase[1]).median;
  p.backward_s = summarize(phase[2]).median;
  p.optimizer_s = summarize(phase[4]).median;
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
  e.found = true;
  e.source = fmt::format(
      "compute of {} ({} ranks, batch {}): the median of {} blocking runs, forward {:.3f} s, "
      "backward {:.3f} s, optimizer {:.3f} s; {} gradients' ready times from their traces; the "
      "slowest rank ends its compute {:.3f} s after the ranks' mean (the median over their "
      "traces of the mean over iterations)",
      r.record.config.model, r.record.config.world_size, r.record.config.global_batch, runs,
      p.forward_s, p.backward_s, p.optimizer_s, p.ready_s.size(), p.straggler_s);
  return e;
}

// The lossy methods' options as the run had them, and the model's parameter shapes (the
// matrices PowerSGD compresses). PowerSGD allreduces plainly before its start iteration: that
// share of the timed iterations.
model::Compression compression_of(const TrainRun& run) {
  const TrainConfig& c = run.record.config;
  model::Compression out;
  out.topk_fraction = c.topk_fraction;
  out.powersgd_rank = c.powersgd_rank;
  out.local_sgd_period = static_cast<int>(c.local_sgd_period);
  const double timed = static_cast<double>(report::timed(run).size());
  if (timed > 0) {
    const double before = static_cast<double>(c.powersgd_start - kTimedFirst);
    out.powersgd_uncompressed_share = std::clamp(before, 0.0, timed) / timed;
  }
  for (const auto& p : model::builtin_parameters(c.model)) out.shapes.push_back(p.shape);
  return out;
}

Phases measured_of(const std::vector<const TrainRun*>& reps) {
  Phases m;
  auto slots = phases_of(m);
  for (size_t i = 0; i < kPhaseCount; ++i) {
    for (const TrainRun* r : reps) *slots[i] += report::phase_mean(*r, i) / reps.size();
  }
  return m;
}

}  // namespace

double mean_straggler_s(const nlohmann::json& events) {
  std::map<int, std::vector<std::pair<double, double>>> iterations;  // rank -> [begin, end]
  std::vector<std::pair<int, std::pair<double, double>>> compute;    // rank, [begin, end]
  for (const auto& e : events) {
    if (e.value("ph", "") != "X") continue;
    const std::string name = e.value("name", "");
    const double ts = e.value("ts", 0.0), end = ts + e.value("dur", 0.0);
    if (name == "iteration") iterations[e.value("pid", 0)].emplace_back(ts, end);
    if (name == "data" || name == "forward" || name == "backward") {
      compute.push_back({e.value("pid", 0), {ts, end}});
    }
  }
  // The k-th iteration of every rank is the same step (each rank traces the same iterations).
  std::map<int, std::vector<double>> per_rank;
  size_t steps = SIZE_MAX;
  for (auto& [rank, spans] : iterations) {
    std::sort(spans.begin(), spans.end());
    per_rank[rank].assign(spans.size(), 0.0);
    steps = std::min(steps, spans.size());
  }
  for (const auto& [rank, span] : compute) {
    auto& spans = iterations[rank];
    for (size_t k = 0; k < spans.size(); ++k) {
      if (span.first >= spans[k].first && span.second <= spans[k].second) {
        per_rank[rank][k] += (span.second - span.first) * 1e-6;
      }
    }
  }
  if (per_rank.size() < 2 || steps == 0) return 0;
  double sum = 0;
  for (size_t k = 0; k < steps; ++k) {
    double slowest = 0, total = 0;
    for (const auto& [rank, c] : per_rank) slowest = std::max(slowest, c[k]), total += c[k];
    sum += slowest - total / static_cast<double>(per_rank.size());
  }
  return sum / static_cast<double>(steps);
}

MeasuredCompute measured_compute(const SystemResults& s, const std::string& model) {
  const TrainRun* like = nullptr;
  for (const auto& r : s.runs) {
    const TrainConfig& c = r.record.config;
    if (r.kind != "train" || c.mode != "blocking" || c.model != model) continue;
    if (like == nullptr || c.world_size > like->record.config.world_size ||
        (c.world_size == like->record.config.world_size &&
         c.global_batch > like->record.config.global_batch)) {
      like = &r;
    }
  }
  if (like == nullptr) return {false, {}, "no blocking run of " + model};
  return profile_for(s, *like);
}

std::string PredictedExperiment::worst_phase() const {
  return kPhaseNames[worst_index(measured, predicted)];
}

double PredictedExperiment::worst_phase_difference_s() const {
  const size_t i = worst_index(measured, predicted);
  return values_of(predicted)[i] - values_of(measured)[i];
}

Prediction predict_system(const SystemResults& s) {
  Prediction out;
  out.label = s.label;
  std::set<std::string> done, noted, swept, on_link, hook_swept;
  std::map<std::tuple<std::string, int64_t, int64_t>, MeasuredCompute> profiles;
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
    const std::tuple<std::string, int64_t, int64_t> key{c.model, c.global_batch, c.world_size};
    auto known = profiles.find(key);
    if (known == profiles.end()) known = profiles.emplace(key, profile_for(s, run)).first;
    const MeasuredCompute& profile = known->second;
    if (!profile.found) {
      note(fmt::format("{} ({}): not predicted: {}", c.model, label, profile.source));
      continue;
    }
    note(profile.source);
    LinkEstimate link = link_for(s, c.backend, c.world_size, run.bottleneck_rate);
    if (!link.found) {
      note(fmt::format("{}: not predicted: no {} allreduce sweep on {} ranks and no set rate",
                       label, c.backend, c.world_size));
      continue;
    }
    note(fmt::format("{} link: {}: latency {:.1f} us, rate {:.1f} MB/s", c.backend, link.source,
                     link.link.latency_s * 1e6, link.link.bytes_per_s / 1e6));
    model::Method method{c.sync, c.mode, c.world_size, c.bucket_mb * kBytesPerMiB, {}, {}, {}, {},
                         {},     {}};
    method.measured_cost = measured_cost_of(s, c, run.bottleneck_rate);
    const bool sends_less = lossy(c.sync);
    if (sends_less) {
      method.compression = compression_of(run);
      const HookEstimate hook = hook_for(s, run);
      method.hook = hook.hook;
      if (!hook.source.empty()) {
        note(hook.source);
      } else if (c.sync != "local_sgd") {
        note(fmt::format(
            "{}: what it sends, on the link; the CPU time of compressing (casts, top-k's "
            "selection, PowerSGD's products) is not modelled without a sweep of its hook",
            c.sync));
      }
    }
    if (c.mode != "blocking") {
      CpuEstimate cpu = comm_cpu_for(s, run);
      method.comm_cpu = cpu.cpu;
      note(cpu.source);
    }
    if (c.sync == "hierarchical") {
      const HostLevels levels = host_levels_for(s, run);
      if (!levels.missing.empty()) {
        note(fmt::format("{}: not predicted: {}", label, levels.missing));
        continue;
      }
      method.placement = {levels.per_host, levels.inside};
      if (levels.leaders.found) link.link = levels.leaders.link;
      if (!levels.source.empty()) note(fmt::format("{}: {}", label, levels.source));
    }
    (method.measured_cost ? swept : method.hook.seconds ? hook_swept : on_link).insert(label);
    for (int64_t b : run.record.bucket_bytes) method.bucket_bytes.push_back(static_cast<double>(b));
    PredictedExperiment row;
    auto reps = report::repetitions(s, run);
    row.run = reps.empty() ? &run : reps[reps.size() / 2];
    row.reps = static_cast<int>(reps.size());
    row.label = label;
    row.lossy = sends_less;
    if (c.sync == "local_sgd") {
      row.lossy_basis = "an allreduce of the parameters every H steps";
    } else if (sends_less) {
      row.lossy_basis = method.hook.seconds
                            ? "its buckets as its hook's sweep measured, compressing included"
                            : "what it sends; the CPU time of compressing not modelled";
    }
    if (c.sync == "bucketed" || c.sync == "c10d_ddp") {
      row.label += fmt::format(" {} MB", c.bucket_mb);
      row.best_s =
          model::best_iteration_s(profile.profile, c.world_size, link.link, method.comm_cpu);
      row.best_without_cpu_s = model::best_iteration_s(profile.profile, c.world_size, link.link);
    }
    if (!run.bottleneck_rate.empty()) {
      row.label += fmt::format(" host {} at {}", run.bottleneck_host, run.bottleneck_rate);
    }
    row.measured = measured_of(reps);
    for (const TrainRun* r : reps)
      row.measured_s += summarize(report::timed(*r)).mean / reps.size();
    row.predicted = model::predict(profile.profile, method, link.link);
    out.rows.push_back(row);
  }
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

std::string prediction_text(const Prediction& p) {
  std::string text = fmt::format("{}\n", p.label);
  for (const auto& n : p.notes) text += fmt::format("  {}\n", n);
  if (p.rows.empty()) return text + "  no experiment could be predicted\n";
  text += fmt::format("\n{:<44} {:>10} {:>10} {:>8}  {}\n", "experiment", "measured", "predicted",
                      "error", "phases, measured/predicted (s)");
  for (const auto& r : p.rows) {
    const auto ms = values_of(r.measured), qs = values_of(r.predicted);
    std::string phases;
    for (size_t i = 1; i < kPhaseCount; ++i) {
      phases += fmt::format("{} {:.3f}/{:.3f}  ", kPhaseNames[i], ms[i], qs[i]);
    }
    text += fmt::format("{:<44} {:>9.3f}s {:>9.3f}s {:>+7.1f}%  {}\n", r.label, r.measured_s,
                        r.predicted.total_s(), 100 * r.error(), phases);
  }
  for (const auto& r : p.rows) {
    if (r.best_s > 0) text += best_text(r) + "\n";
  }
  return text;
}

}  // namespace dtbench
