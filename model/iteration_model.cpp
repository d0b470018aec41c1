#include "model/iteration_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>

#include "catalogue/methods.h"
#include "model/openmpi_tuned.h"
#include "model/token_buckets.h"

namespace dtbench::model {
namespace {

using TensorCost = std::function<double(int ranks, double bytes, const Link& link)>;

// The time of each algorithm a method's row can be priced as (catalogue/methods.h: priced_as).
const std::map<PricedAs, TensorCost>& algorithms() {
  static const std::map<PricedAs, TensorCost> table = {
      {PricedAs::nothing, [](int, double, const Link&) { return 0.0; }},
      {PricedAs::gather_scatter, gather_scatter_s},
      {PricedAs::tree_reduce_broadcast, tree_reduce_broadcast_s},
      {PricedAs::ring_allreduce, ring_allreduce_s},
      {PricedAs::ring_allgather, ring_allgather_s},
      {PricedAs::chain_reduce_broadcast, chain_reduce_broadcast_s},
      // One rank per host (set_sent prices the two levels of a placement).
      {PricedAs::two_level, ring_allreduce_s},
  };
  return table;
}

// The hooks on bucketed's engine that send their buckets their own way (docs/compression.md).
bool hooked(const std::string& sync) {
  return modelled(sync) && find_method(sync).engine == Engine::hooked;
}

// The share of the iterations predicted that come before `from` (a hook's plain iterations).
double share_before(int64_t from, const Method& method) {
  const auto iterations = static_cast<double>(method.last_iteration - method.first_iteration + 1);
  const auto before = static_cast<double>(from - method.first_iteration);
  return iterations > 0 ? std::clamp(before, 0.0, iterations) / iterations : 0;
}

// What a hook sends of one bucket, and how long it takes (buckets_of).
void set_sent(Bucket& b, const std::vector<size_t>& members, const ComputeProfile& compute,
              const Method& method, const std::function<double(double)>& cost, const Link& link) {
  const SyncMethod& row = find_method(method.sync);
  const int n = method.ranks;
  if (row.priced_as == PricedAs::two_level) {
    const int per_host = std::clamp(method.placement.ranks_per_host, 1, n);
    b.seconds =
        hierarchical_allreduce_s(n / per_host, per_host, b.bytes, method.placement.inside, link);
    return;
  }
  if (row.sends == nullptr) return;
  std::vector<BucketParameter> bucket;
  bucket.reserve(members.size());
  for (size_t i : members) {
    bucket.push_back({compute.tensor_bytes[i],
                      i < compute.shapes.size() ? compute.shapes[i] : std::vector<int64_t>{}});
  }
  const BucketSend send = row.sends(bucket, method.options, n);
  double seconds = 0;
  for (const BucketCall& call : send.calls) {
    seconds += call.times * (call.algorithm == PricedAs::ring_allreduce
                                 ? cost(call.bytes)
                                 : algorithms().at(call.algorithm)(n, call.bytes, link));
  }
  // Before it compresses, the bucket goes as it is.
  const double w = share_before(send.compresses_from, method);
  b.sent_bytes = (1 - w) * send.sent_bytes + w * b.bytes;
  b.seconds = (1 - w) * seconds + w * cost(b.bytes);
  const MeasuredHook& hook = method.hook;
  if (!hook.seconds || !hook.machine_cpu_s) return;
  // As the hook's sweep measured it.
  const auto& allreduce_cpu = method.comm_cpu.machine_cpu_s;
  b.seconds = (1 - w) * hook.seconds(b.bytes) + w * cost(b.bytes);
  b.cpu_s =
      (1 - w) * hook.machine_cpu_s(b.bytes) + w * (allreduce_cpu ? allreduce_cpu(b.bytes) : 0);
}

// DDP's own plan (compute_bucket_assignment_by_size): reverse order, the first bucket up to
// 1 MiB, the others up to the cap.
std::vector<double> ddp_bucket_bytes(const std::vector<double>& tensor_bytes, double cap) {
  std::vector<double> buckets;
  double open = 0, limit = kFirstBucketBytes;
  for (auto it = tensor_bytes.rbegin(); it != tensor_bytes.rend(); ++it) {
    open += *it;
    if (open >= limit) {
      buckets.push_back(open);
      open = 0, limit = cap;
    }
  }
  if (open > 0) buckets.push_back(open);
  return buckets;
}

}  // namespace

bool modelled(const std::string& sync) {
  const SyncMethod* m = method_named(sync);
  return m != nullptr && algorithms().count(m->priced_as) > 0;
}

double tensor_sync_s(const std::string& sync, int ranks, double bytes, const Link& link,
                     const std::string& backend, bool apart) {
  const SyncMethod* m = method_named(sync);
  auto it = m == nullptr ? algorithms().end() : algorithms().find(m->priced_as);
  if (it == algorithms().end()) throw std::invalid_argument("no model for " + sync);
  if (backend == "mpi" && m->priced_as == PricedAs::tree_reduce_broadcast) {
    return apart ? openmpi_reduce_s(ranks, bytes, link) + openmpi_bcast_s(ranks, bytes, link)
                 : openmpi_reduce_bcast_s(ranks, bytes, link);
  }
  return it->second(ranks, bytes, link);
}

namespace {

// What the links' token buckets hold when a synchronisation starts, in bytes: what refilled
// them at the rate while the ranks computed for idle_s, at most their depth.
double credit_after(const Link& link, double idle_s) {
  return link.burst_bytes > 0 ? std::min(link.burst_bytes, link.bytes_per_s * idle_s) : 0;
}

using TurnCall = std::function<double(Buckets&, double start)>;

// One tensor's call, for a method whose links take turns (model/token_buckets.h): gather_scatter,
// ring_reduce's hops, Open MPI's trees. Empty where every link works in every step (the rings,
// binomial trees over another backend). apart: reduce_broadcast's collectives each settled on
// its own, as sweeps made apart time them; empty too.
TurnCall turn_call(const Method& method, double bytes, const Link& link, bool apart) {
  const int n = method.ranks;
  switch (find_method(method.sync).priced_as) {
    case PricedAs::gather_scatter:
      return [n, bytes](Buckets& b, double t) { return gather_scatter_call(n, bytes, b, t); };
    case PricedAs::chain_reduce_broadcast:
      return
          [n, bytes](Buckets& b, double t) { return chain_reduce_broadcast_call(n, bytes, b, t); };
    case PricedAs::tree_reduce_broadcast:
      if (method.backend != "mpi" || apart) return {};
      return [n, bytes, link](Buckets& b, double t) {
        return openmpi_bcast_call(n, bytes, link, b, openmpi_reduce_call(n, bytes, link, b, t));
      };
    default:
      return {};
  }
}

// The credit spent on the buckets in the order they go. A time a sweep measured
// (method.measured_cost), or the formula's, is a call made back to back with itself, on buckets
// as such calls leave them (settled_call_s). Where the links take turns, the calls of an
// iteration are followed through the buckets instead, from what the compute left in them: each
// one's time moves by what its call takes there less what it takes settled. A call after a
// large one finds the ways that one drained, whatever credit is left elsewhere.
// Where every link works in every step, each bucket's time on the rate (its algorithm on the
// link less the same with no rate to wait for) shrinks by the credit's bytes at the rate, until
// none is left. A sweep's time already holds the credit its own operations found: the link
// refilled the buckets while an operation did not keep it busy (its measured time less its time
// on the rate), at most their depth, and all of it after a rest (rested_up_to_bytes); only the
// credit beyond that saves time. Buckets with their
// own time (the lossy hooks', two levels') keep it. apart: its collectives priced apart
// (tensor_sync_s).
void spend_credit(std::vector<Bucket>& buckets, double credit, const Method& method, bool apart,
                  const Link& link, const std::function<double(double)>& cost) {
  Link no_rate = link;
  no_rate.bytes_per_s = std::numeric_limits<double>::infinity();
  no_rate.burst_bytes = 0;
  Buckets turns(method.ranks, link, credit);
  double clock = 0;
  for (Bucket& b : buckets) {
    if (b.seconds >= 0) continue;
    const TurnCall call = turn_call(method, b.bytes, link, apart);
    if (!call && !(credit > 0)) continue;
    const double full = cost(b.bytes);
    const double settled =
        tensor_sync_s(method.sync, method.ranks, b.bytes, link, method.backend, apart);
    if (call) {
      const double end = call(turns, clock);
      b.seconds = std::max(0.0, full + (end - clock) - settled);
      clock = std::max(end, clock + b.seconds);
      continue;
    }
    const double on_rate = std::max(0.0, settled - tensor_sync_s(method.sync, method.ranks, b.bytes,
                                                                 no_rate, method.backend, apart));
    const double in_sweep = !method.measured_cost ? 0
                            : b.bytes <= method.rested_up_to_bytes
                                ? link.burst_bytes
                                : credit_after(link, std::max(0.0, full - on_rate));
    const double saved = std::clamp((credit - in_sweep) / link.bytes_per_s, 0.0, on_rate);
    b.seconds = std::max(0.0, full - saved);
    credit -= (full - b.seconds) * link.bytes_per_s;
  }
}

}  // namespace

std::vector<Bucket> buckets_of(const ComputeProfile& compute, const Method& method,
                               const std::function<double(double bytes)>& cost, const Link& link) {
  const size_t n = compute.tensor_bytes.size();
  std::vector<Bucket> buckets;
  if (!bucketed_engine(method.sync)) {
    for (size_t i = n; i-- > 0;) buckets.push_back({compute.tensor_bytes[i], compute.ready_s[i]});
    return buckets;
  }
  std::vector<double> sizes = method.bucket_bytes;
  if (sizes.empty())
    sizes =
        ddp_bucket_bytes(compute.tensor_bytes, static_cast<double>(method.options.bucket_bytes()));
  std::vector<std::vector<size_t>> members;
  size_t next = n;  // the parameters fill the buckets from the last one back
  auto fill = [&](double size) {
    Bucket b;
    members.emplace_back();
    while (next > 0 && b.bytes < size) {
      --next;
      b.bytes += compute.tensor_bytes[next];
      b.ready_s = std::max(b.ready_s, compute.ready_s[next]);
      members.back().push_back(next);
    }
    buckets.push_back(b);
  };
  for (double size : sizes) fill(size);
  // Buckets that do not cover every parameter: the rest goes last.
  if (next > 0) fill(std::numeric_limits<double>::infinity());
  if (hooked(method.sync) && cost) {
    for (size_t k = 0; k < buckets.size(); ++k) {
      set_sent(buckets[k], members[k], compute, method, cost, link);
    }
  }
  return buckets;
}

Phases predict(const ComputeProfile& compute, const Method& method, const Link& link) {
  if (!modelled(method.sync)) throw std::invalid_argument("no model for " + method.sync);
  Phases p{compute.data_s, compute.forward_s, compute.backward_s, 0, compute.optimizer_s};
  if (method.ranks <= 1) return p;
  const bool synchronises = method.sync != "none";
  // The iteration counted is the slowest rank's. Ranks that synchronise leave each iteration at
  // different times (slowest_excess_s); without synchronisation (none) no rank waits for another,
  // and the slowest rank's iteration is longer than the mean by its compute's lag (straggler_s).
  p.slowest_excess_s = synchronises ? compute.slowest_excess_s : compute.straggler_s;
  const bool composed = method.measured_cost && method.apart && method.compose_apart;
  auto cost = [&](double bytes) {
    if (!method.measured_cost) {
      return tensor_sync_s(method.sync, method.ranks, bytes, link, method.backend, method.apart);
    }
    if (!composed) return method.measured_cost(bytes);
    const auto formula = [&](bool apart) {
      return tensor_sync_s(method.sync, method.ranks, bytes, link, method.backend, apart);
    };
    return std::max(0.0, method.measured_cost(bytes) - formula(true) + formula(false));
  };
  const SyncMethod& info = find_method(method.sync);
  if (info.engine == Engine::local) {
    // An iteration's time is its slowest rank's: behind the ranks' mean by the straggler in
    // every iteration, whether or not another rank waits for it.
    double all = 0;
    for (double b : compute.tensor_bytes) all += b;
    p.comm_s =
        cost(all) / static_cast<double>(std::max<int64_t>(1, method.options.local_sgd_period));
    p.sync_s = p.comm_s + compute.straggler_s;
    return p;
  }
  std::vector<Bucket> buckets = buckets_of(compute, method, cost, link);
  // stale: step t's sums have step t+1's forward and backward to finish, sent as it begins,
  // where a core is free to carry them. Where the machine's ranks keep its cores busy (comm_cpu
  // set), their comm threads wait for the compute to end: nothing is hidden, no CPU taken from it,
  // and the sums finish after it as a blocking method's do.
  const bool hides = method.options.mode == SyncMode::stale && !method.comm_cpu.machine_cpu_s;
  // Through token buckets, the compute since the last synchronisation refilled them: the first
  // bytes go without waiting for the rate. Blocking: the whole compute; overlap: until the first
  // bucket is ready. Sums hidden behind compute need none.
  if (!hides && !buckets.empty() && method.rest_saves_s) {
    // What a rest saved, as measured: the first bucket to go finds the rested links.
    Bucket& first = buckets.front();
    if (first.seconds < 0) {
      const double full = cost(first.bytes);
      first.seconds = full - std::clamp(method.rest_saves_s(first.bytes), 0.0, full);
    }
  } else if (!hides && !buckets.empty()) {
    const double before = compute.optimizer_s + compute.data_s + compute.forward_s;
    const double idle = before + (method.options.mode == SyncMode::overlap ? buckets.front().ready_s
                                                                           : compute.backward_s);
    // Blocking and stale, a per-tensor method calls its tensors in the model's order
    // (PerTensorSync), the first parameter's first: the credit goes to those.
    const bool model_order =
        info.engine == Engine::per_tensor && method.options.mode != SyncMode::overlap;
    if (model_order) std::reverse(buckets.begin(), buckets.end());
    // Composed, its collectives are priced together.
    spend_credit(buckets, credit_after(link, idle), method, method.apart && !composed, link, cost);
    if (model_order) std::reverse(buckets.begin(), buckets.end());
  }
  for (const Bucket& b : buckets) p.comm_s += b.seconds >= 0 ? b.seconds : cost(b.bytes);
  if (method.options.mode == SyncMode::overlap) {
    // A hook runs each bucket's blocking collectives on a communication thread. Where the
    // machine's ranks keep its cores busy, that thread gets a compute thread's share of them
    // while backward runs: its collectives go that many times slower until backward ends
    // (CommCpu::slowdown). The engine's own iallreduce is not slowed.
    const double slowdown = info.engine == Engine::hooked ? method.comm_cpu.slowdown() : 1.0;
    // One pass: the CPU of what overlaps the measured backward stretches it (and the buckets'
    // ready times), then the buckets go out on the stretched schedule. The last buckets wait for
    // the slowest rank's gradients too.
    // Several in flight at once, each bucket's bytes on the wire as a ring's (ring_link_bytes).
    InFlight in_flight{method.in_flight, {}, method.in_flight_shares};
    if (method.in_flight > 1 && link.bytes_per_s > 0) {
      in_flight.on_link_s = [&link, n = method.ranks](double bytes) {
        return ring_link_bytes(n, bytes) / link.bytes_per_s;
      };
    }
    const double stolen = overlapped_cpu_s(buckets, p.backward_s, cost, method.comm_cpu,
                                           {p.backward_s, slowdown}, in_flight);
    if (p.backward_s > 0) {
      for (Bucket& b : buckets) b.ready_s *= (p.backward_s + stolen) / p.backward_s;
    }
    p.backward_s += stolen;
    const std::vector<Transfer> transfers =
        transfers_of(buckets, cost, {p.backward_s, slowdown}, in_flight);
    // Slowed, the buckets take longer on the clock; several at once, they share it: the
    // communication a trace holds is their time in flight.
    if (slowdown > 1) {
      p.comm_s = 0;
      for (const Transfer& t : transfers) p.comm_s += t.end - t.start;
    } else if (method.in_flight > 1) {
      p.comm_s = in_flight_s(transfers);
    }
    // A per-tensor method runs each tensor's blocking collective on that thread too, but a
    // tensor's collective is short: where the cores are busy, the collectives, a step behind on
    // every rank, finish after backward as a blocking method's do (stale's rule, above).
    const bool after_compute = info.engine == Engine::per_tensor && method.comm_cpu.machine_cpu_s;
    const double exposed =
        (after_compute ? p.comm_s : exposed_after_backward_s(transfers, p.backward_s)) +
        compute.straggler_s;
    // DDP's Reducer waits for its buckets inside backward's final callback.
    (info.waits_in_backward ? p.backward_s : p.sync_s) += exposed;
    return p;
  }
  p.sync_s = std::max(0.0, p.comm_s - (hides ? p.forward_s + p.backward_s : 0));
  if (!hides && synchronises) p.sync_s += compute.straggler_s;
  return p;
}

double best_iteration_s(const ComputeProfile& compute, int ranks, const Link& link,
                        const CommCpu& cpu) {
  const Phases compute_only{compute.data_s, compute.forward_s, compute.backward_s, 0,
                            compute.optimizer_s};
  const size_t n = compute.tensor_bytes.size();
  if (ranks <= 1 || n == 0) return compute_only.total_s();
  const double waited = compute_only.total_s() + compute.straggler_s + compute.slowest_excess_s;
  double all = 0;
  for (double b : compute.tensor_bytes) all += b;
  std::vector<double> after(n, 0);  // every byte ready at or after gradient g
  for (size_t g = 0; g < n; ++g) {
    for (size_t h = 0; h < n; ++h) {
      if (compute.ready_s[h] >= compute.ready_s[g]) after[g] += compute.tensor_bytes[h];
    }
  }
  // Communication's CPU per byte sent during backward, on the machine's cores.
  const double cpu_per_byte =
      cpu.machine_cpu_s && all > 0
          ? std::max(0.0, cpu.machine_cpu_s(all) - cpu.machine_cpu_s(0)) / all / cpu.cores
          : 0;
  // What the iteration takes beyond its compute when x bytes are sent during backward: their
  // CPU, which stretches backward and its ready times, then whatever is left after backward,
  // at least the rest of the bytes and everything ready at or after each r_g.
  auto beyond = [&](double x) {
    const double stretch = compute.backward_s > 0 ? 1 + cpu_per_byte * x / compute.backward_s : 1;
    double exposed = x < all ? ring_allreduce_s(ranks, all - x, link) : 0;
    for (size_t g = 0; g < n; ++g) {
      exposed = std::max(exposed, ring_allreduce_s(ranks, after[g], link) -
                                      stretch * (compute.backward_s - compute.ready_s[g]));
    }
    return cpu_per_byte * x + std::max(0.0, exposed);
  };
  // A convex function of x (a line plus the largest of lines): its least value by ternary
  // search.
  double lo = 0, hi = all;
  for (int i = 0; i < 200; ++i) {
    const double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
    if (beyond(a) <= beyond(b)) {
      hi = b;
    } else {
      lo = a;
    }
  }
  const double least = std::min({beyond(0), beyond(lo), beyond(all)});
  return waited + least;
}

}  // namespace dtbench::model
