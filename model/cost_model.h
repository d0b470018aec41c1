#pragma once
// The cost model (docs/model.md): what each synchronisation method should cost, from a link's
// latency and rate, the bytes each algorithm moves in each step, and when backward makes each
// bucket's gradients ready. Small on purpose: every formula is one line a user can check by
// hand against docs/strategies.md.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace dtbench::model {

class Buckets;

// Hockney's model of one link: moving b bytes takes latency_s + b / bytes_per_s. A link shaped
// by a token bucket (the emulated cluster's tc tbf: burst_bytes > 0) fills it while a step
// waits its latency, and what the bucket holds goes at once: a step of b bytes takes
// latency_s + max(0, b - min(burst_bytes, bytes_per_s x latency_s)) / bytes_per_s, from
// max(latency, b / rate) when the bucket is deep to Hockney's sum without one.
struct Link {
  double latency_s = 0;
  double bytes_per_s = 1;
  double burst_bytes = 0;
  double time(double bytes) const {
    const double refilled = burst_bytes > 0 ? std::min(burst_bytes, bytes_per_s * latency_s) : 0;
    return latency_s + std::max(0.0, bytes - refilled) / bytes_per_s;
  }
};

// One collective of S bytes per rank over n ranks whose every link is `link` (full duplex, one
// link per rank). Each is the algorithm's steps times the time of the bytes one step puts on the
// busiest link.
// Ring allreduce: 2(n-1) steps of S/n: 2(n-1) a + 2(n-1)/n S/B.
double ring_allreduce_s(int n, double bytes, const Link& link);
// What a ring allreduce of S bytes puts through each rank's link, each way: 2(n-1)/n S (the
// factor from algorithm bandwidth to bus bandwidth).
inline double ring_link_bytes(int n, double bytes) {
  return 2.0 * (n - 1) / n * bytes;
}
// Gather to rank 0, then scatter from it: rank 0's link receives, then sends, (n-1) S:
// 2 a + 2 (n-1) S/B.
double gather_scatter_s(int n, double bytes, const Link& link);
// Ring reduce to rank 0 then the sum passed round again (the course's ring_reduce): 2(n-1)
// steps of the whole S: 2(n-1) (a + S/B). The hops go one after another, so through token
// buckets each link's refill while the others hop (model/token_buckets.h).
double chain_reduce_broadcast_s(int n, double bytes, const Link& link);
// One call of each of the two on buckets followed from call to call (model/token_buckets.h),
// from `start`: when it ends.
double gather_scatter_call(int n, double bytes, Buckets& b, double start);
double chain_reduce_broadcast_call(int n, double bytes, Buckets& b, double start);
// Reduce to rank 0, then broadcast from it, each a binomial tree: 2 ceil(log2 n) (a + S/B).
double tree_reduce_broadcast_s(int n, double bytes, const Link& link);
// Allgather of every rank's S: (n-1) steps of S each around a ring: (n-1)(a + S/B).
double ring_allgather_s(int n, double bytes, const Link& link);
// Two levels (the hierarchical strategy): within each host of h ranks a reduce and a broadcast
// over `inside` (2 (h-1) steps of S, a chain), and a ring allreduce among the H hosts' leaders
// over `between`.
double hierarchical_allreduce_s(int hosts, int per_host, double bytes, const Link& inside,
                                const Link& between);

// The link whose ring allreduce of S bytes over n ranks takes alpha + beta S (a straight line
// fitted to a sweep of allreduce times): a = alpha / 2(n-1), B = 2(n-1) / (n beta).
Link link_of_ring_fit(int n, double alpha_s, double beta_s_per_byte);

// The straight line t = alpha + beta x through (x, t) points, least squares on relative errors
// (each point weighted 1/t^2, so 4 KiB counts as much as 64 MiB). Needs 2 distinct x.
struct Line {
  double alpha = 0, beta = 0;
};
Line fit_line_relative(const std::vector<double>& x, const std::vector<double>& t);

// Least squares with no intercept: the coefficients c minimising sum_i w_i (sum_k c_k
// columns[k][i] - t_i)^2. std::invalid_argument unless the columns are independent.
std::vector<double> fit_columns(const std::vector<std::vector<double>>& columns,
                                const std::vector<double>& t, const std::vector<double>& w);

// A collective's time as a sweep measured it (bench_collectives): the times at the measured
// sizes, straight lines between them, the last segment's slope beyond the largest and the first
// size's time below the smallest. What a method that calls the collective pays for each tensor,
// whatever algorithm the library chose and whatever the rank computes inside it. Where the
// library's choice of algorithm is known (`messages`: how many times the message's own time
// the chosen algorithm takes at a size, e.g. Open MPI's reduce on 4 ranks: 2 at 64 KiB, 3 at
// 256 KiB), the straight lines are drawn through each size's time per message, and a size
// between two swept ones takes its own algorithm's messages.
struct MeasuredCost {
  std::vector<double> bytes, seconds;  // ascending sizes
  std::function<double(double bytes)> messages;
  std::vector<double> noisy_bytes;  // the sizes read_out_noise replaced
  // The sizes read as one operation's latency rather than chained (report/predict/model_inputs.h,
  // sweep_of's per_tensor), and what the barrier left in each operation, taken off their time.
  std::vector<double> latency_bytes;
  double barrier_s = 0;
  // The sizes whose time was swept after a rest (sweep_of): each found the links' token bucket
  // full.
  std::vector<double> rested_bytes;
  double time(double b) const;
};

// No size of a sweep takes more than kNoiseFactor times what a larger size took: a size measured
// slower than that is read as noise (a burst of other work during its operations: on the EPYC
// VM one study's MPI allreduce of 256 B to 4 KiB took 0.43-1.10 ms where 16 KiB took 0.06 ms,
// and training's tensors of those sizes 0.02-0.04 ms) and takes the least time of the larger
// sizes. In the committed directories, their repetitions averaged as they are priced, it
// replaces five sizes of 4 to 256 B and changes no prediction.
inline constexpr double kNoiseFactor = 2.0;
void read_out_noise(MeasuredCost& m);

// A bucket of the overlap engine: its bytes and when its last gradient is ready, in seconds
// from the start of backward. A lossy method's bucket also says what it sends instead: as the
// bytes of a float32 allreduce that moves as much (sent_bytes), and the time of its own
// collectives (seconds); negative: an allreduce of `bytes`, which takes cost(bytes). Where its
// operation's CPU was measured (a lossy hook's sweep: compressing included), cpu_s is one
// machine's CPU time for it; negative: that of an allreduce of sent() (CommCpu).
struct Bucket {
  double bytes = 0;
  double ready_s = 0;
  double sent_bytes = -1;
  double seconds = -1;
  double cpu_s = -1;
  double sent() const { return sent_bytes >= 0 ? sent_bytes : bytes; }
};

// Overlap: the buckets go out one after another on one link, each as soon as it is ready and the
// one before has gone; `cost` is one bucket's time (e.g. a ring allreduce of its bytes). Before
// `slowed.until_s` a transfer progresses `slowed.factor` times slower (a communication thread
// sharing the cores with backward), after it at its own pace. With `in_flight.ops` > 1 (Gloo's
// process group runs that many operations at once on its threads), a bucket starts once it is
// ready and the ops-th before it has ended, and its time is two parts: its bytes on the wire
// (`in_flight.on_link_s`) and the rest, its steps' latency (the ranks waking, posting, reducing).
// Two operations in flight take their bytes one after the other, and a bucket's latency waits
// for a share of the one's before it (`shares.waits`: 1, all of it; 0, none), but one's latency
// goes while the other's bytes are on the wire: a bucket ends no sooner than that share of the
// latencies before it and its own latency and bytes, nor than its bytes through the link. Its bytes
// take the link after those before it and after a share of its own latency (`shares.before_bytes`:
// 1, all of it, as when it goes alone; 0, none: they go as soon as it starts, while its steps'
// latency passes under another's bytes). When each bucket's transfer starts and ends, in seconds
// from the start of backward.
struct Slowed {
  double until_s = 0;
  double factor = 1;
};
// Of each operation's latency in flight, what waits for the other's, and what goes before its
// bytes take the link (fitted_in_flight_shares): 1 and 1, as one after the other.
struct InFlightShares {
  double waits = 1;
  double before_bytes = 1;
};
struct InFlight {
  int ops = 1;
  std::function<double(double bytes)> on_link_s;  // the time its bytes hold the link
  InFlightShares shares;
};
struct Transfer {
  double start = 0, end = 0;
  double work = 0;  // its time at its own pace
  Slowed slowed;
  // The share of its work done by time t.
  double done_by(double t) const {
    const double slow_end = std::clamp(slowed.until_s, start, std::max(start, t));
    const double done = (slow_end - start) / slowed.factor + std::max(0.0, t - slow_end);
    return work > 0 ? std::clamp(done / work, 0.0, 1.0) : (t > start ? 1.0 : 0.0);
  }
};
template <typename Cost>
std::vector<Transfer> transfers_of(const std::vector<Bucket>& buckets, const Cost& cost,
                                   Slowed slowed = {}, const InFlight& in_flight = {}) {
  slowed.factor = std::max(1.0, slowed.factor);
  // Without the bytes' time on the wire, one at a time.
  const size_t ops = in_flight.on_link_s ? static_cast<size_t>(std::max(1, in_flight.ops)) : 1;
  const bool together = ops > 1;
  std::vector<Transfer> out;
  double released = 0;  // in flight together: when the share of the latencies so far is through
  double carried = 0;   // and when the bytes so far are through the link
  for (const Bucket& b : buckets) {
    const size_t i = out.size();
    const double free = i >= ops ? out[i - ops].end : 0;  // a thread free
    const double after = i > 0 ? out[i - 1].start : 0;    // launched in order
    Transfer t{std::max({b.ready_s, free, after}), 0, b.seconds >= 0 ? b.seconds : cost(b.bytes),
               slowed};
    const double slow_span = std::max(0.0, slowed.until_s - t.start);
    t.end = slowed.factor * t.work <= slow_span
                ? t.start + slowed.factor * t.work
                : std::max(t.start, slowed.until_s) + t.work - slow_span / slowed.factor;
    if (together) {
      const double wire = std::min(t.work, in_flight.on_link_s(b.sent()));
      const double latency = t.work - wire, acquired = std::max(t.start, released);
      released = acquired + in_flight.shares.waits * latency;
      carried = std::max(carried, acquired + in_flight.shares.before_bytes * latency) + wire;
      t.end = std::max({t.end, acquired + latency + wire, carried});
    }
    out.push_back(t);
  }
  return out;
}

// The time the transfers hold communication in flight: their union.
inline double in_flight_s(const std::vector<Transfer>& transfers) {
  double total = 0, reached = -std::numeric_limits<double>::infinity();
  for (const Transfer& t : transfers) {
    const double from = std::max(t.start, reached);
    if (t.end > from) total += t.end - from;
    reached = std::max(reached, t.end);
  }
  return total;
}

// What a sweep of pairs in flight (bench_collectives' iallreduce_pair and iallreduce_uneven)
// measured at one size: each part's time alone (the iallreduce sweep's at its bytes) and its
// bytes' time on the wire, the first launched first, and the pair's time, both launched together.
struct PairTime {
  double first_s = 0, first_wire_s = 0;
  double second_s = 0, second_wire_s = 0;
  double measured_s = 0;
};
// The shares under which transfers_of puts such pairs nearest what was measured: of waits 0,
// 0.01, ..., 3 and before_bytes 1, 0.99, ..., 0, the pair of least summed squared relative error
// (of equally near ones, the greatest before_bytes, then the least waits). Pairs of equal halves
// (`even`) hardly tell before_bytes: without an uneven pair (a small part's latency beside a large
// part's bytes) it stays 1. Below about half, a pair of halves launched together takes their bytes'
// time one after the other whatever waits is: a sweep that took that reads as the least. 1 and 1
// with no pair.
InFlightShares fitted_in_flight_shares(const std::vector<PairTime>& even,
                                       const std::vector<PairTime>& uneven);
// transfers_of's time for one such pair under these shares.
double pair_in_flight_s(const PairTime& pair, const InFlightShares& shares);

// The synchronisation left after backward ends at backward_s: max(0, last end - backward_s).
// When every bucket finishes before the next is ready, only the last bucket's cost is exposed.
inline double exposed_after_backward_s(const std::vector<Transfer>& transfers, double backward_s) {
  double end = 0;
  for (const Transfer& t : transfers) end = std::max(end, t.end);
  return end > backward_s ? end - backward_s : 0;
}
// The same for buckets as transfers_of schedules them. `factor`: how many times slower the
// transfers go while backward runs (Slowed).
template <typename Cost>
double exposed_after_backward_s(const std::vector<Bucket>& buckets, double backward_s,
                                const Cost& cost, double factor = 1) {
  return exposed_after_backward_s(transfers_of(buckets, cost, {backward_s, factor}), backward_s);
}

}  // namespace dtbench::model
