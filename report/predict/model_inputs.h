#pragma once
// The cost model's inputs worked out from one system's results directory (docs/model.md): the
// links fitted to its collectives sweeps (or the emulated cluster's set rate), the CPU that
// communication takes from compute, what the lossy hooks' sweeps measured, the per-tensor
// collectives' sweeps, hierarchical's two levels, and the compute of its blocking runs with the
// gradients' ready times from their traces (trace_facts.h). Each says where it came from.
#include <functional>
#include <string>
#include <vector>

#include "catalogue/methods.h"
#include "common/links.h"
#include "model/iteration_model.h"
#include "report/read/results.h"

namespace dtbench {

// A link the model prices communication on, and where it came from.
struct LinkEstimate {
  bool found = false;
  model::Link link;
  std::string source;
};

// Whether every link of the results' system is alike: no bottleneck host.
bool links_alike(const SystemResults& s);

// The time the model prices one operation of a sweep at. Gloo's: its operations chained, as
// training calls them one tensor after another (chained_s, where the sweep measured it): Gloo's
// own barrier between two operations takes milliseconds, and how late its last rank leaves it
// was in every operation's time (on 8 ranks of 2 cores, extrapolation-netns-8-100mbit-xeon-vm,
// its allreduce of 64 B took 21.8-22.3 ms between barriers, 15.4-16.2 chained, and LeNet-5's
// small tensors mostly 15-20 inside training). MPI's: between barriers, as
// nccl-tests time them: its barrier leaves the ranks microseconds apart, and chained, its
// operations of 1 to 16 KiB drain the links' token bucket, which the model counts itself.
double priced_s(const CollectiveRun& c);

// Whether each of the sweep's ranks had a core of its own (the system's cores per machine, at
// least its ranks per machine).
bool core_each(const SystemResults& s, const CollectiveRun& c);

// Whether a benchmark op is the library's own collective: all but the hand-written rings
// (ring_reduce, ring_allreduce: isend/irecv steps).
bool library_collective(const std::string& op);

// Whether a rested sweep's operations price their sizes (sweep_of): Gloo's, where each rank has a
// core of its own; Open MPI's own collectives (library_collective), however the ranks share the
// cores.
bool priced_after_rest(const SystemResults& s, const CollectiveRun& rested);

// One collective's sweep: (bytes, seconds) of op over backend on this many ranks (and, when
// machines or hosts > 0, on that many machines or hosts), by size, as priced_s reads them; but
// where priced_after_rest, up to the links' token bucket, as swept after a rest, where a rested
// sweep measured the size (MeasuredCost::rested_bytes). Gloo's where each rank has a core of its
// own: a rank waiting in Gloo lets its core idle, and every operation pays the core's wake-up as
// after a rest (on 2 hosts of a 2-core VM, extrapolation-netns-8-100mbit-epyc-vm-frag8k, LeNet-5's
// tensors up to 16 KiB took 2.83 ms in training, 2.56 swept after 3 ms of rest, 1.45 chained; on 8
// hosts 15.2, 18.0, 14.7). Open MPI's own collectives on any ranks: inside training a call finds
// the links' token bucket refilled by the compute and the calls before it, and its ranks arriving
// apart, as after a rest, where between barriers the calls before drained the bucket and the
// ranks leave the barrier together (LeNet-5's allreduces up to 16 KiB, each iteration's first
// left out, on the same VM's 2, 4 and 8 hosts: 0.068, 0.327, 0.768 ms in training, 0.094, 0.298,
// 0.648 after 3 ms of rest, 0.283, 0.460, 0.611 between barriers; on
// extrapolation-16-netns-16-100mbit-epyc-vm 0.099, 0.416, 1.621 against 0.115, 0.428, 1.616 and
// 0.285, 0.449, 0.900). The hand-written rings stay between barriers: inside training the two
// directories' rings took what each sweep says, no one sweep for both.
// per_tensor: as a per-tensor method calls the operation, between calls of other sizes: Gloo's
// chained sizes each at least their latency, their time between barriers less what Gloo's barrier
// leaves in an operation (the most that between barriers exceeds chained at the sizes up to
// kBarrierSizes). Chained, a rank done with one operation starts the next of the same size while
// the others finish theirs, which training's next tensor, of another size, does not let it do: on
// study-netns-4-bottleneck-epyc-vm the chain reduce (ring_reduce) of LeNet-5's 192,000 B tensor
// took 47.7 ms chained, 55.2 between barriers (0.8 of it the barrier's), and inside training that
// tensor and the next one, 480 B, 55.8 ms together.
model::MeasuredCost sweep_of(const SystemResults& s, const std::string& op,
                             const std::string& backend, int ranks, int machines = 0, int hosts = 0,
                             bool per_tensor = false);
inline constexpr double kBarrierSizes = 65536;

// The token bucket a ring over the system's hosts passes through (model::Link::burst_bytes):
// the slowest link's, a bottleneck host's if any; 0 where the links have none.
double bucket_between_hosts(const SystemResults& s);

// The sizes a run sends on the link (its buckets), smallest and largest; none: {0, 0}.
struct SentSizes {
  double smallest = 0, largest = 0;
  bool known() const { return largest > 0; }
};

// The link a ring allreduce's sweep on these ranks (and machines or hosts, when > 0) shows, read
// as a ring (the hand-written one, whose algorithm is known; Gloo's own allreduce is a ring
// too), sizes from 4 KiB. With the sizes a run sends, the rate from the swept sizes within 4x of
// them where at least two are: one rate does not hold every size through a slow host (on
// study-netns-4-bottleneck-epyc-vm MPI's ring moved 12.0 MB/s at 192 KB, 7.3 at 16 MiB).
LinkEstimate fitted_link(const SystemResults& s, const std::string& backend, int ranks,
                         int machines, int hosts = 0, SentSizes sent = {});

// The backend's link: fitted to a ring allreduce's sweep on these ranks (at the sizes sent, where
// known); else the emulated cluster's set rate. A bottleneck link caps the rate (every algorithm
// here waits for it).
LinkEstimate link_for(const SystemResults& s, const std::string& backend, int ranks,
                      const std::string& bottleneck_rate, SentSizes sent = {});

// What communication asks of the CPU, where the machine's ranks keep its cores busy: a straight
// line through the machine CPU time per operation (cpu_points) of the run's own backend's
// `iallreduce`, the call the overlapping engines make, waited for by a caller that sleeps as a
// computing rank does; where a directory has none (older results), Gloo's blocking allreduce,
// whose threads sleep too (MPI's blocking calls poll, which would count as work).
struct CpuEstimate {
  model::CommCpu cpu;
  std::string source;
};
// swept_ranks > 0: from the sweep on that many ranks (the model past the ranks measured),
// scaled by what the run's rings carry through each machine against the sweep's.
CpuEstimate comm_cpu_for(const SystemResults& s, const TrainRun& run, int swept_ranks = 0);

// A lossy hook's bucket as the sweep of the hook on these ranks and backend measured it
// (bench_collectives' fp16_hook, powersgd_hook, topk_hook: compressing, its collectives and
// decompressing, with the hooks' defaults): its time between the swept sizes, and a straight
// line through the machine CPU time (cpu_points). None for a run with other options than the
// sweep's, or a bottleneck the sweep did not have.
struct HookEstimate {
  model::MeasuredHook hook;
  std::string source;
};
HookEstimate hook_for(const SystemResults& s, const TrainRun& run);

// The strategy's per-tensor cost from the sweeps of the collectives it calls, the catalogue's
// priced_by where every one was swept on these ranks and backend, else its or_priced_by where
// every one was (and no bottleneck changed the links since); else no cost. noise names the sizes of
// those sweeps model::read_out_noise replaced; empty where none.
struct SweptCost {
  std::function<double(double)> cost;
  std::string noise;
  std::string latency;  // the sizes sweep_of's per_tensor read as their latency; empty: none
  std::vector<CollectiveCall> calls;  // the collectives whose sweeps it sums
  // Up to this tensor size every one of those sweeps was made after a rest
  // (model::Method::rested_up_to_bytes); 0: none.
  double rested_up_to_bytes = 0;
  // The sum of several collectives' sweeps, made apart (model::Method::apart).
  bool apart() const { return calls.size() > 1; }
};
SweptCost measured_cost_of(const SystemResults& s, const TrainConfig& c,
                           const std::string& bottleneck_rate);

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
HostLevels host_levels_for(const SystemResults& s, const TrainRun& run);

// The compute of `model` measured in s: the blocking runs of it with the most ranks, then the
// largest batch, among those with ready times from their traces (a matrix may leave its largest
// runs untraced). found = false (and source says why) when s has none, or none traced.
struct MeasuredCompute {
  bool found = false;
  model::ComputeProfile profile;
  std::string source;
};
MeasuredCompute measured_compute(const SystemResults& s, const std::string& model);
// The compute of runs like r (model, batch, ranks) that do not overlap; the slowest rank's
// excess (ComputeProfile::slowest_excess_s) from those over r's backend where there are any.
// At the pace of every run's forward, or with paced_by_backend of the runs over `backend`
// (where there are any): profile_for paces r's compute so where r's ranks leave cores idle
// (waits_idle_cores).
MeasuredCompute profile_for(const SystemResults& s, const TrainRun& r);
MeasuredCompute compute_of(const SystemResults& s, const std::string& model, int64_t batch,
                           int ranks, const std::string& backend = "",
                           bool paced_by_backend = false);

// Whether a run's ranks leave a core of their machine idle while they wait: its compute threads
// (its ranks on one machine, all of them on the emulated cluster, whose namespaces share the
// machine's cores; times each rank's threads) no more than the machine's cores. There a rank
// that sleeps through its wait (Gloo's) leaves its core to idle and computes slower after it
// than one that polls (MPI's); where they are more, a waiting rank's core goes to another's
// compute (docs/model.md).
bool waits_idle_cores(const SystemResults& s, const TrainRun& run);

// The compute for a run like c that overlaps its communication with backward: where the ranks
// share cores, what communicates beside compute pulls them further apart than in the blocking
// runs, and the wait for the slowest rank (straggler_s) is that of the traced overlapping runs
// of the same model, batch and ranks (the median of their traces' stragglers): those of c's own
// method and backend, never the experiment named `own` (the one being predicted: never judged by
// itself). A method that waits inside backward (c10d_ddp) ends every rank's backward together,
// so its traces cannot show the wait: it takes that of the traced runs of every exact
// (not lossy) overlapping method. Unchanged where there are none, or c does not overlap.
MeasuredCompute with_overlap_wait(const SystemResults& s, const TrainConfig& c,
                                  MeasuredCompute compute, const std::string& own = "");

}  // namespace dtbench
