#pragma once
// One training iteration, predicted phase by phase (docs/model.md): the compute a rank does
// (measured once, the same for every method), plus what each synchronisation method's
// algorithm costs on the link, overlapped with backward as far as its gradients' ready times
// and its buckets allow.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "catalogue/methods.h"
#include "common/timed_window.h"
#include "model/cost_model.h"

namespace dtbench::model {

// What a rank computes in one iteration, whatever the method: the phases of a run that does
// not overlap, and when each parameter's gradient is ready (seconds from the start of
// backward), with its bytes. Parameters in the model's order (backward makes the last first).
// straggler_s: how much later than this profile's rank the slowest rank ends its compute, in
// an iteration on average (ranks that share cores do not keep step); every synchronisation
// waits for it.
struct ComputeProfile {
  double data_s = 0, forward_s = 0, backward_s = 0, optimizer_s = 0;
  std::vector<double> tensor_bytes;
  std::vector<double> ready_s;
  // Each parameter's shape, in the model's order: the matrices PowerSGD compresses. Without
  // them, every tensor counts as sent uncompressed.
  std::vector<std::vector<int64_t>> shapes;
  double straggler_s = 0;
  // How much longer than the mean the 95th percentile iteration's compute is (the slowest
  // rank's, per iteration): what the spread of an iteration's time is predicted from.
  double spread_p95_s = 0;
  // How much longer the slowest rank's iteration is than the ranks' mean, on average: the
  // iteration counted is the slowest rank's (docs/result-record.md), the phases the ranks' mean,
  // and ranks that leave one iteration's end at different times differ in their iterations'
  // lengths.
  double slowest_excess_s = 0;
};

// What communication asks of the CPU: the time one machine's cores spend per collective of B
// bytes (sums, copies, the kernel's network stack; bench_collectives' machine_cpu_s), and how
// many cores the machine has. Set only where the machine's ranks keep its cores busy while they
// compute: there, communication that runs during compute takes its CPU time from the compute.
struct CommCpu {
  std::function<double(double bytes)> machine_cpu_s;  // empty: communication costs no CPU
  int cores = 1;
  int threads = 0;  // the machine's compute threads (its ranks x each one's); 0: one per core

  // How many times longer a collective takes on a communication thread while the compute runs:
  // that thread gets a compute thread's share of the cores (docs/model.md). 1 where cores are
  // left free.
  double slowdown() const {
    return machine_cpu_s && cores > 0 && threads > cores ? static_cast<double>(threads) / cores
                                                         : 1.0;
  }
};

// Where the ranks run: ranks_per_host of them on each host, in rank order, and the link between
// two ranks of one host (predict's `link` joins the hosts). Only hierarchical tells the two apart.
struct Placement {
  int ranks_per_host = 1;
  Link inside;
};

// A lossy hook's whole operation on one bucket of `bytes` (compressing, its collectives,
// decompressing) as a sweep of the hook measured it: its time, and one machine's CPU time.
// Empty: what the hook sends, priced on the link, and an allreduce's CPU for it.
struct MeasuredHook {
  std::function<double(double bytes)> seconds, machine_cpu_s;
};

// How a run synchronises: the strategy, the ranks, the run's options (its mode, the bucket cap
// c10d_ddp's buckets are planned from, the lossy hooks'), and for the bucketed engines their
// buckets in launch order (bytes; the record's bucket_bytes).
struct Method {
  std::string sync;
  std::string backend;  // "mpi": a reduce and a broadcast as Open MPI chooses them
  int ranks = 1;
  SyncOptions options;
  std::vector<double> bucket_bytes;
  // The iterations the prediction stands for (the record's timed window): a hook that
  // compresses only from some iteration on is averaged over them.
  int64_t first_iteration = kTimedFirst, last_iteration = kTimedLast;
  // One tensor's (or bucket's) synchronisation as measured by a sweep of the collectives the
  // method calls; empty: the algorithm's formula on the link (tensor_sync_s).
  std::function<double(double bytes)> measured_cost;
  // Up to this size measured_cost's sweeps were made after a rest: each operation found the
  // links' token bucket full, and the credit the compute refills saves it nothing more.
  double rested_up_to_bytes = 0;
  // Its collectives priced as made apart, each back to back with itself (tensor_sync_s's
  // `apart`): where measured_cost sums sweeps of reduce_broadcast's reduce and broadcast (a record
  // with no sweep of the two together), or the link was fitted to such sums.
  bool apart = false;
  // With apart, on links all alike: the sweeps' sum composed as the method makes its
  // collectives, one after the other, by the formula: plus what the formula takes for them
  // together, less what it takes for them apart. Then priced as made together. (Where a
  // bottleneck host's links differ from the others, the formula on one link does not tell it.)
  bool compose_apart = false;
  // What a rest of the links before an operation saves on its time, as sweeps measured it
  // (chained, less after a rest; at least 0), which the first bucket to go gets; empty: the
  // credit the links' token bucket refilled during the compute before (Link::burst_bytes).
  std::function<double(double bytes)> rest_saves_s;
  // How many of its buckets' operations run at once (InFlight): Gloo's process group's threads
  // for the bucketed engines over Gloo; 1, one after the other.
  int in_flight = 1;
  // Of each one's latency in flight, what waits for the others' and what goes before its bytes
  // take the link (InFlight::shares): as sweeps of pairs fitted them; 1 and 1, all of it.
  InFlightShares in_flight_shares;
  CommCpu comm_cpu;
  Placement placement;
  MeasuredHook hook;  // fp16, powersgd, topk
};

// The five phases of the result record (docs/result-record.md).
struct Phases {
  double data_s = 0, forward_s = 0, backward_s = 0, sync_s = 0, optimizer_s = 0;
  // Not a phase: the communication the iteration carries, hidden or exposed (its tensors' or
  // buckets' times, one after the other; a hook's slowed beside backward as they go on the
  // clock), to hold against a trace's.
  double comm_s = 0;
  // Not a phase either: the slowest rank's iteration over the ranks' mean
  // (ComputeProfile::slowest_excess_s), part of the iteration's time.
  double slowest_excess_s = 0;
  double phases_s() const { return data_s + forward_s + backward_s + sync_s + optimizer_s; }
  double total_s() const { return phases_s() + slowest_excess_s; }
};

// The methods predict() knows.
bool modelled(const std::string& sync);

// One flat tensor of `bytes` summed across the ranks by the strategy's algorithm; over the
// backend "mpi", reduce_broadcast's reduce and broadcast are the algorithms Open MPI's tuned
// rules choose for the size and ranks (model/openmpi_tuned.h), one after the other, else
// binomial trees. apart: a method of several collectives (reduce_broadcast) priced as its
// collectives' times each made back to back with itself, as sweeps made apart time them.
double tensor_sync_s(const std::string& sync, int ranks, double bytes, const Link& link,
                     const std::string& backend = "", bool apart = false);

// The buckets of a method with their ready times: per tensor (one per parameter) for the
// per-tensor strategies, else the bucketed engines' buckets filled in reverse parameter order.
// The lossy hooks set each bucket's sent_bytes and seconds from their catalogue row's send rule
// (SyncMethod::sends: its calls, each priced as its algorithm on `link`, or as `cost` where it is
// an allreduce): fp16 an allreduce of S_b / 2, topk two ring allgathers of k (index, value)
// pairs, powersgd allreduces of the tensors it leaves as they are and of its factors P and Q.
// Before the iteration a hook compresses from (PowerSGD's start), an allreduce of S_b, weighed
// by its share of the iterations predicted. A method priced two_level (hierarchical) sends
// no fewer bytes, each bucket in two levels (hierarchical_allreduce_s): a reduce and a broadcast
// among a host's ranks on the placement's `inside`, a ring allreduce among the hosts' leaders
// on `link`. Where method.hook was measured, a lossy hook's buckets take its time and CPU
// instead. `cost` is one allreduce's time.
std::vector<Bucket> buckets_of(const ComputeProfile& compute, const Method& method,
                               const std::function<double(double bytes)>& cost = {},
                               const Link& link = {});

// The iteration, phase by phase. std::invalid_argument for a method that is not modelled.
// local_sgd: no gradient moves; every options.local_sgd_period steps one allreduce of every
// parameter, after the optimizer: allreduce(S) / period of sync per iteration, and the straggler,
// since an iteration's time is its slowest rank's whether or not another waits for it. The lossy
// hooks are bucketed's engine with their buckets' own collectives (buckets_of); the CPU time of
// compressing (casts, top-k's selection, PowerSGD's products and orthogonalisation) is in the model
// only where method.hook measured it (each bucket's cpu_s). Blocking and overlap: the wait for the
// slowest rank (compute.straggler_s) is part of the exposed synchronisation (c10d_ddp: of backward,
// where its Reducer waits). Overlap: backward is stretched by the CPU time of the communication
// that runs while the rank computes, shared by the machine's cores (method.comm_cpu), and its
// gradients' ready times with it; where the ranks keep the cores busy, a hook's buckets (blocking
// calls on a communication thread) go comm_cpu.slowdown() times slower until backward ends, and
// a per-tensor method's collectives (blocking calls on that thread too, each short) all finish
// after that backward, none hidden. Stale: the sums hidden behind the next iteration's forward and
// backward where cores are left free; where the ranks keep them busy (method.comm_cpu set),
// finished after the compute as a blocking method's.
Phases predict(const ComputeProfile& compute, const Method& method, const Link& link);

// One machine's CPU time for a bucket's operation: as measured (cpu_s), else an allreduce's of
// what it sends. Only where cpu.machine_cpu_s is set.
inline double machine_cpu_of(const Bucket& b, const CommCpu& cpu) {
  return b.cpu_s >= 0 ? b.cpu_s : cpu.machine_cpu_s(b.sent());
}

// The CPU time, spread over the machine's cores, of the part of each bucket's communication
// that runs before backward ends at backward_s (each bucket's CPU spread evenly over its work,
// the transfers as transfers_of schedules them, slowed as `slowed` says, in_flight at once).
template <typename Cost>
double overlapped_cpu_s(const std::vector<Bucket>& buckets, double backward_s, const Cost& cost,
                        const CommCpu& cpu, const Slowed& slowed = {},
                        const InFlight& in_flight = {}) {
  if (!cpu.machine_cpu_s) return 0;
  const std::vector<Transfer> transfers = transfers_of(buckets, cost, slowed, in_flight);
  double used = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    used += machine_cpu_of(buckets[i], cpu) * transfers[i].done_by(backward_s);
  }
  return used / cpu.cores;
}

// The best iteration any bucket plan could reach: the compute, the wait for the slowest rank and
// its iteration's excess, plus what no plan can hide. No plan sends a byte before its gradient is
// ready, so the part after backward is at least max over gradients g of (r_g + the time to send
// every byte ready at or after r_g as one ring allreduce) - backward (the smallest last bucket's
// cost at least). With communication's CPU (cpu, as predict charges it), the x bytes a plan sends
// during backward stretch it (and its ready times) by their CPU share, and the other S - x are
// sent after it: the least over x of cpu(x) / cores + max(ring(S - x), what the ready times
// leave after the stretched backward).
double best_iteration_s(const ComputeProfile& compute, int ranks, const Link& link,
                        const CommCpu& cpu = {});

}  // namespace dtbench::model
