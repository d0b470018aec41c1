// bench_collectives: every collective alone, nccl-tests style, on mpi or gloo.
//   mpirun -np 4 --oversubscribe build/bench_collectives --backend mpi
//       --benchmark_out=coll.json --benchmark_out_format=json
// Per operation: a barrier, then the call, timed on every rank; the iteration's time is the
// slowest rank's (manual time). Inputs are seeded per (iteration, rank) and every result is
// checked against its closed form outside the timed region: a wrong element anywhere fails
// the benchmark and the process exits non-zero. The operations run before Google Benchmark's
// loop, which then reports their times (as bench_train does with training iterations).
#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "benchmark_main.h"
#include "catalogue/methods.h"
#include "collectives/collective.h"
#include "comm/allgather_text.h"
#include "common/host.h"
#include "common/machine_cpu.h"
#include "common/mpi_check.h"
#include "common/units.h"

namespace dtbench::bench {
namespace {

constexpr int64_t kVgg11Floats = 9231114;  // VGG-11's gradient: 36.9 MB
// LeNet-5's two largest gradients, fc1's weight (192000 B) and fc2's (40320 B): most of what its
// per-tensor methods send, and between the sizes by fours, where a library's time is not a
// straight line (Open MPI's allreduce on 4 ranks, one host at 100 Mbit/s: 7.9 ms at 64 KiB,
// 48.5 ms at 256 KiB, 28.9 ms at 192000 B where the line says 34.0).
constexpr std::array<int64_t, 2> kLenet5Floats = {48000, 10080};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Fewer repetitions of large messages; the same on every rank, as MPI requires.
int64_t iterations_for(int64_t bytes) {
  return std::clamp<int64_t>(256 * kMiB / std::max<int64_t>(bytes, 1), 5, 200);
}

// The operations a size takes at least when its time limit (--size-seconds) stops it.
constexpr int64_t kLeastOperations = 3;

// The distinct machines the ranks run on (by kernel boot id: the emulated cluster's namespaces
// are one machine), whether this rank is the first on its own, and the distinct hosts (by host
// name, as the training records name them: each namespace is a host).
struct Machines {
  int count = 1;
  bool reader = false;
  int hosts = 1;
};
Machines machines_of(Communicator& control) {
  const std::vector<std::string> ids = allgather_text(control, machine_id());
  const std::vector<std::string> names = allgather_text(control, host_name());
  Machines m;
  m.count = static_cast<int>(std::set<std::string>(ids.begin(), ids.end()).size());
  m.reader = std::find(ids.begin(), ids.end(), ids[control.rank()]) - ids.begin() == control.rank();
  m.hosts = static_cast<int>(std::set<std::string>(names.begin(), names.end()).size());
  return m;
}

void measure(benchmark::State& state, const Collective& c, int64_t count, World& w,
             const Options& options) {
  const FaultPlan& faults = options.faults;
  Communicator& comm = *w.comm;
  Buffers b = c.allocate(count, comm);
  c.fill(b, comm, -1);
  c.run(comm, b);  // warm-up: connections, first-touch of the buffers
  // Every operation first, between two barriers, checked locally: between two operations
  // nothing crosses the network but barriers (as in an OSU loop). The barrier after the call
  // keeps a rank that is done from checking and refilling while a peer still needs the CPU to
  // finish (4 ranks on 2 cores). The slowest rank's time of each operation and the wrong
  // elements are reduced once, afterwards.
  // One rank per machine also reads the machine's CPU time (the whole machine, kernel and its
  // network stack included) from before the barrier to after the one that follows the call:
  // reading it inside the timed region would delay this rank's start.
  // With --rest-ms, every rank idles that long after the barrier: the operation finds the links
  // as a training step's first call finds them after its compute (through a shaped link, a
  // two-way exchange back to back goes at about half the rate it reaches after a rest).
  // A size stops early, after kLeastOperations, once its operations took --size-seconds on the
  // slowest rank (on a slow link a 16 MiB gather and scatter takes seconds): every rank learns it
  // from the same reduction, so all stop after the same operation.
  const Machines machines = machines_of(*w.control);
  std::vector<double> seconds(static_cast<size_t>(iterations_for(count * kFloatBytes)));
  int64_t wrong = 0;
  double machine_cpu = 0;
  double spent_s = 0;
  int64_t operations = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(seconds.size()); ++i) {
    if (options.size_seconds > 0 && i >= kLeastOperations &&
        max_over_ranks(*w.control, spent_s) >= options.size_seconds) {
      break;
    }
    c.fill(b, comm, i);
    const double cpu0 = machines.reader ? read_machine_cpu().busy_s : 0;
    comm.barrier();
    if (options.rest_s > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(options.rest_s));
    auto t0 = std::chrono::steady_clock::now();
    c.run(comm, b);
    seconds[i] = seconds_since(t0);
    comm.barrier();
    spent_s += seconds[i];
    ++operations;
    if (machines.reader) machine_cpu += read_machine_cpu().busy_s - cpu0;
    if (faults.at(FaultPoint::result_check, comm.rank()) == Fault::wrong) {
      // Wrong for every check: no closed form holds it, and the lossy hooks' results must be
      // finite.
      (b.out.numel() > 0 ? b.out : b.in).view({-1})[0] = std::numeric_limits<float>::quiet_NaN();
    }
    wrong += c.wrong(b, comm, i);
  }
  seconds.resize(static_cast<size_t>(operations));
  // The same operations chained, as training calls them one tensor after another: no barrier
  // between them, so a rank that leaves one late starts the next late, as in training, instead
  // of every operation's time holding how late the last rank left the barrier before it. The
  // slowest rank's time in the operations, per operation (chained_s); refilling the buffers
  // between two operations is left out of it.
  const int64_t chain = std::max(kLeastOperations, operations / 2);
  comm.barrier();
  double in_operations_s = 0;
  for (int64_t k = 0; k < chain; ++k) {
    c.fill(b, comm, k);
    const auto t0 = std::chrono::steady_clock::now();
    c.run(comm, b);
    in_operations_s += seconds_since(t0);
  }
  const double chained_s = max_over_ranks(*w.control, in_operations_s) / static_cast<double>(chain);
  max_over_ranks(*w.control, seconds);
  wrong = static_cast<int64_t>(sum_over_ranks(*w.control, static_cast<double>(wrong)));
  machine_cpu = sum_over_ranks(*w.control, machine_cpu) / static_cast<double>(machines.count);
  // One Google Benchmark iteration: the mean over the operations of the slowest rank's time.
  const double mean_s =
      std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(operations);
  for (auto _ : state) state.SetIterationTime(mean_s);
  const double bytes = static_cast<double>(count * kFloatBytes);
  using benchmark::Counter;
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
  state.counters["algbw"] = Counter(bytes, Counter::kIsIterationInvariantRate, Counter::kIs1000);
  state.counters["busbw"] = Counter(bytes * c.busbw_factor(comm.size()),
                                    Counter::kIsIterationInvariantRate, Counter::kIs1000);
  state.counters["wrong"] = static_cast<double>(wrong);
  state.counters["bytes"] = bytes;
  state.counters["ranks"] = comm.size();
  state.counters["operations"] = static_cast<double>(operations);
  state.counters["chained_s"] = chained_s;
  state.counters["rest_s"] = options.rest_s;
  state.counters["machine_cpu_s"] = machine_cpu / static_cast<double>(operations);
  state.counters["machines"] = machines.count;
  state.counters["hosts"] = machines.hosts;
  if (wrong > 0) state.SkipWithError(fmt::format("{} wrong elements", wrong).c_str());
}

// The OSU micro-benchmarks' way (osu_allreduce): barrier, MPI_Allreduce, timed, repeated; the
// mean per rank, the slowest rank's mean reported. Measures bench_collectives' own overhead.
// The same loop's times also give nccl-tests' statistic, the mean over operations of the
// slowest rank's time (what `allreduce` reports), as the counter per_op_max_s: the two
// statistics differ by how much the ranks' finishing times jitter from one operation to the
// next, which is not overhead.
void osu_allreduce(benchmark::State& state, int64_t count, World& w) {
  std::vector<float> buffer(static_cast<size_t>(count), 1.0f);
  const int64_t repeats = iterations_for(count * kFloatBytes);
  DTB_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, buffer.data(), static_cast<int>(count), MPI_FLOAT,
                              MPI_SUM, MPI_COMM_WORLD));
  double per_op_max = 0;
  for (auto _ : state) {
    std::vector<double> times(static_cast<size_t>(repeats));
    for (double& t : times) {
      DTB_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
      double t0 = MPI_Wtime();
      DTB_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, buffer.data(), static_cast<int>(count), MPI_FLOAT,
                                  MPI_SUM, MPI_COMM_WORLD));
      t = MPI_Wtime() - t0;
    }
    const double total = std::accumulate(times.begin(), times.end(), 0.0);
    state.SetIterationTime(max_over_ranks(*w.control, total / static_cast<double>(repeats)));
    max_over_ranks(*w.control, times);
    per_op_max = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(repeats);
  }
  state.counters["bytes"] = static_cast<double>(count * kFloatBytes);
  state.counters["repeats"] = static_cast<double>(repeats);
  state.counters["per_op_max_s"] = per_op_max;
}

// How many of a model's gradients one operation of the collective carries where a method calls it
// with each gradient: n where a method's call moves every rank's whole gradient (the catalogue's
// times_ranks: the allgather method, a vector of n gradients), else 1.
int64_t gradients_per_operation(const Collective& c, int n) {
  for (const auto& m : sync_methods()) {
    for (const auto& call : m.priced_by) {
      if (call.op == c.name && call.times_ranks) return n;
    }
  }
  return 1;
}

std::vector<std::pair<int64_t, std::string>> sizes(int64_t per_operation) {
  std::vector<std::pair<int64_t, std::string>> all;
  // 4 bytes to 64 MiB, by fours, and the models' sizes.
  for (int64_t bytes = kFloatBytes; bytes <= 64 * kMiB; bytes *= 4) {
    all.emplace_back(bytes / kFloatBytes, "");
  }
  for (int64_t floats : kLenet5Floats) all.emplace_back(floats * per_operation, "/case:lenet5");
  all.emplace_back(kVgg11Floats, "/case:vgg11");
  std::sort(all.begin(), all.end());  // smallest first, the models' sizes among the others
  return all;
}

// The OSU reference for an allreduce of this many floats, if there is one: over MPI, at 4 MiB
// and VGG-11's size.
bool has_osu_reference(const Collective& c, const std::string& backend, int64_t count) {
  return c.name == "allreduce" && backend == "mpi" &&
         (count * kFloatBytes == 4 * kMiB || count == kVgg11Floats);
}

void register_osu_allreduce(World& w, int64_t count) {
  auto name = fmt::format("osu_allreduce/backend:mpi/bytes:{}/ranks:{}", count * kFloatBytes,
                          w.comm->size());
  benchmark::RegisterBenchmark(name.c_str(),
                               [count, &w](benchmark::State& s) { osu_allreduce(s, count, w); })
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

void register_all(World& w, const Options& options) {
  const int n = w.comm->size();
  const std::string backend = w.comm->backend();
  for (const Collective& c : collectives()) {
    for (auto [count, suffix] : sizes(gradients_per_operation(c, n))) {
      if (c.split) count -= count % n;  // n equal parts
      if (count == 0) continue;
      auto name = fmt::format("{}/backend:{}/bytes:{}/ranks:{}{}", c.name, backend,
                              count * kFloatBytes, n, suffix);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [&c, count = count, &w, &options](benchmark::State& s) {
                                     measure(s, c, count, w, options);
                                   })
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
      // Right after the operation it is the reference for, so that the two run seconds apart
      // (this machine's speed drifts over minutes).
      if (has_osu_reference(c, backend, count)) register_osu_allreduce(w, count);
    }
  }
}

}  // namespace
}  // namespace dtbench::bench

int main(int argc, char** argv) {
  return dtbench::bench::benchmark_main(
      argc, argv, "bench_collectives",
      [](dtbench::bench::World& world, dtbench::bench::Options& options, const std::string&) {
        dtbench::bench::register_all(world, options);
      });
}
