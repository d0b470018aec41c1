#pragma once
// The catalogue of gradient-synchronisation methods: what each one is, how it runs and what it
// calls, as plain data without libtorch. The trainer's factories (grad_sync.h), the cost model,
// predict, what-if, the CLI, bench_train, the record and the report all read it. Adding a method
// is a row here (its cost rule included: priced_as), its strategy file with a factory in
// sync/factories.cpp; docs/strategies.md says how, step by step.
#include <cstdint>
#include <string>
#include <vector>

#include "common/units.h"

namespace dtbench {

enum class Aggregate { mean, sum };  // sum: no division, the effective learning rate grows n-fold
enum class SyncMode {
  blocking,  // communicate after backward
  overlap,   // launch from gradient hooks during backward; wait before the step
  stale,     // apply step t-1's aggregated gradient while step t's is in flight
};

// PyTorch DDP's _DEFAULT_FIRST_BUCKET_BYTES: the first bucket (the last layers' gradients, ready
// first in backward) is kept small so that communication starts early.
inline constexpr int64_t kFirstBucketBytes = kMiB;
// DDP's bucket_cap_mb: the default cap of every other bucket.
inline constexpr double kDefaultBucketMb = 25;

struct SyncOptions {
  Aggregate aggregate = Aggregate::mean;
  SyncMode mode = SyncMode::blocking;
  double bucket_mb = kDefaultBucketMb;  // bucketed, c10d_ddp and the compressing strategies
  int64_t bucket_bytes() const { return static_cast<int64_t>(bucket_mb * kMiB); }
  // The communication-efficient strategies (docs/compression.md).
  int powersgd_rank = 1;         // PowerSGD's matrix approximation rank r
  int64_t powersgd_start = 10;   // plain allreduce for the iterations before this one
  double topk_fraction = 0.01;   // top-k: the share of each bucket's elements sent
  int64_t local_sgd_period = 8;  // local SGD: parameters averaged every H steps
  // hierarchical: consecutive blocks of this many ranks form a host (as mpirun fills a hosts
  // file's slots); 0: ranks whose host names are the same.
  int ranks_per_host = 0;
};

// What a method's numeric option takes, as the CLI checks it.
enum class OptionRange { positive, non_negative, from_two, fraction };

// One of SyncOptions' numeric options: its key in the record (the CLI's flag is the key with
// dashes: bucket_mb, --bucket-mb), its help, its range, and whether a lossy hook's sweep in
// bench_collectives ran at its default (a run with another value is not priced by the sweep).
struct OptionSpec {
  const char* key;
  const char* help;
  OptionRange range;
  bool fixed_in_sweep;
};

// Every numeric option of the methods, once: the CLI, the record and the cost model read this
// list, and docs/result-record.md is checked against the record it writes. A method's new
// option is a field above and a line here. visit(spec, field) for each.
template <class Options, class Visit>
void each_sync_option(Options& o, Visit&& visit) {
  visit(OptionSpec{"bucket_mb", "Bucket size in MiB (bucketed, c10d_ddp, fp16, powersgd, topk)",
                   OptionRange::positive, false},
        o.bucket_mb);
  visit(OptionSpec{"powersgd_rank", "powersgd: the rank r of each matrix's factors",
                   OptionRange::positive, true},
        o.powersgd_rank);
  visit(OptionSpec{"powersgd_start",
                   "powersgd: plain allreduce for the iterations before this one (at least 2)",
                   OptionRange::from_two, false},
        o.powersgd_start);
  visit(OptionSpec{"topk_fraction", "topk: the share of each bucket's entries sent, in (0, 1]",
                   OptionRange::fraction, true},
        o.topk_fraction);
  visit(OptionSpec{"local_sgd_period", "local_sgd: average the parameters every H steps",
                   OptionRange::positive, false},
        o.local_sgd_period);
  visit(OptionSpec{"ranks_per_host",
                   "hierarchical: hosts are blocks of this many consecutive ranks (0: ranks "
                   "with the same host name)",
                   OptionRange::non_negative, false},
        o.ranks_per_host);
}

// Whether two runs' options give a lossy hook the same work per bucket: those a sweep fixes
// are equal.
bool same_swept_options(const SyncOptions& a, const SyncOptions& b);

// What the trainer measured for a strategy that plans from time: when each parameter's
// gradient became ready in the first (untimed) iteration, in seconds from the start of backward,
// in model order, the latest over ranks (negative: it never arrived on any rank); and, before
// training, alone on the strategy's communicator, the cost of an allreduce of b bytes,
// latency_s + b / bytes_per_s. Every rank holds the same Timeline.
struct Timeline {
  std::vector<double> ready_s;
  double latency_s = 0;
  double bytes_per_s = 0;
};

// How a method moves its gradients.
enum class Engine {
  none,        // nothing moves
  per_tensor,  // one collective (or chain of them) per gradient tensor (per_tensor.h)
  bucketed,    // flat buckets in reverse order, launched from gradient hooks (bucketed.h)
  hooked,      // bucketed's buckets, each sent by a hook of its own (bucket_hook.h)
  local,       // no gradient moves; the parameters are averaged now and then (local SGD)
};

// One bench_collectives operation a method calls for a tensor of S bytes, as its sweep is
// labelled: allgather's sweep by the gathered n S (times_ranks).
struct CollectiveCall {
  std::string op;
  bool times_ranks = false;
};

// How the cost model prices one tensor of a per-tensor method, or one bucket of the others: the
// algorithm whose time model/cost_model.h gives (docs/model.md). A method's row names it, so
// that a new method priced like an existing one needs no rule in the model.
enum class PricedAs {
  unmodelled,              // the model does not predict it
  nothing,                 // nothing moves
  gather_scatter,          // gather to a root, scatter back
  tree_reduce_broadcast,   // binomial-tree reduce, then broadcast
  ring_allreduce,          // reduce-scatter + allgather on a ring
  ring_allgather,          // allgather of n copies on a ring
  chain_reduce_broadcast,  // reduce along a chain, then pass the sum around
  two_level,  // within each host to its first rank, a ring among those, back within the host
};

// One collective a hook calls on a bucket, as the cost model prices it: `algorithm` on `bytes`
// (each rank's message), `times` over.
struct BucketCall {
  PricedAs algorithm = PricedAs::ring_allreduce;
  double bytes = 0;
  int times = 1;
};

// What a lossy hook sends of one bucket: its calls and the bytes each rank hands over. Before
// iteration `compresses_from` it sends the bucket as it is, in one allreduce.
struct BucketSend {
  std::vector<BucketCall> calls;
  double sent_bytes = 0;
  int64_t compresses_from = 0;
};

// A parameter in a bucket: its gradient's bytes (float32) and its shape ({}: not known).
struct BucketParameter {
  double bytes = 0;
  std::vector<int64_t> shape;
};

// A lossy hook's rule for what it sends (the cost model prices the calls on the link where no
// sweep of the hook was measured, docs/compression.md).
using SendRule = BucketSend (*)(const std::vector<BucketParameter>& bucket, const SyncOptions& o,
                                int ranks);

struct SyncMethod {
  std::string name;
  std::string description;
  Engine engine = Engine::none;
  // The aggregate is approximated (compression) or not formed every step (local SGD): the
  // exactness checks do not apply, each has tests of its own.
  bool lossy = false;
  std::vector<SyncMode> modes;  // the modes it supports, the first being its default
  // per tensor: the collectives that sync one tensor, whose sweeps price it; hooked and lossy:
  // the one operation that times a whole bucket, compressing included (<name>_hook).
  std::vector<CollectiveCall> priced_by;
  bool in_what_if = false;   // one of the methods `dtbench what-if` draws
  std::string only_backend;  // "": any backend
  // Waits for its last buckets inside backward (DDP's Reducer, in autograd's final callback),
  // not in the sync phase after it.
  bool waits_in_backward = false;
  // Its cost rule: a tensor's (per tensor) or a bucket's (the bucketed engines; a lossy hook's
  // bucket is then priced by its sweep where there is one, else as what it sends).
  PricedAs priced_as = PricedAs::unmodelled;
  // A lossy hook's: what it sends of a bucket.
  SendRule sends = nullptr;
  // per tensor: where a record has no sweep of priced_by (a composite swept only since), the
  // collectives that price a tensor instead, each swept on its own.
  std::vector<CollectiveCall> or_priced_by = {};
};

// Every method, in the order the CLI and the report list them.
const std::vector<SyncMethod>& sync_methods();
// UserError listing the known names otherwise.
const SyncMethod& find_method(const std::string& name);
// nullptr for an unknown name (a record of a method since removed).
const SyncMethod* method_named(const std::string& name);
// Whether the method runs on bucketed's engine (bucketed itself, c10d_ddp, the hooked ones),
// its buckets overlapping backward. False for unknown names.
bool bucketed_engine(const std::string& name);
// The method's `lossy`; false for unknown names (a record of a method since removed).
bool is_lossy(const std::string& name);
// UserError unless the method has this mode: "sync bucketed has no mode stale (it has: ...)".
void require_mode(const SyncMethod& method, SyncMode mode);
// The method of a run that names none: allreduce with several ranks, none alone.
std::string default_sync(int world_size);
// The mode of a run of `sync` without --mode: the method's first. For "" (a run that names no
// method) the first mode of the methods default_sync chooses from, which they share.
// UserError for an unknown method.
SyncMode default_mode_of(const std::string& sync);

// `dtbench methods`: the catalogue as a Markdown table, a row per method: its --sync name, what
// moves, its modes (the default first), and its backend where it needs one. README.md holds it.
std::string methods_table();

std::string to_string(SyncMode mode);
std::string to_string(Aggregate aggregate);
// UserError for an unknown name.
SyncMode parse_mode(const std::string& name);
Aggregate parse_aggregate(const std::string& name);

}  // namespace dtbench
