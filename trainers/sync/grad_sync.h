#pragma once
// A gradient-synchronisation strategy: after finish() returns, every parameter's grad() holds
// the gradient aggregated over all ranks. Strategies contain no clocks and print nothing; the
// trainer times them (exposed sync = the time inside finish()) and measures the Timeline a
// strategy may plan from.
#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.h"
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

struct SyncOptions {
  Aggregate aggregate = Aggregate::mean;
  SyncMode mode = SyncMode::blocking;
  double bucket_mb = 25;  // bucketed, c10d_ddp and the compressing strategies
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

class GradSync {
 public:
  virtual ~GradSync() = default;
  // Once, before training: buffers and autograd hooks for these parameters (model order).
  virtual void setup(const std::vector<at::Tensor>& params, Communicator& comm) = 0;
  // Before each step's forward, before the optimizer zeroes the gradients: a strategy may reset
  // gradients that are views of its own buffers (bucketed), which zero_grad() cannot detach.
  virtual void before_forward() {}
  virtual void before_backward(const at::Tensor& /*loss*/) {}
  // Blocks until every grad() holds the aggregate. Returns false when there is no gradient to
  // apply this step (stale mode's first step).
  virtual bool finish() = 0;
  // After the optimizer's step (local SGD averages the parameters here, every H steps).
  virtual void after_step() {}
  // Brings the replicas to agreement now, before they are checked and evaluated at the end of
  // an epoch (local SGD averages the parameters unless it just did); a no-op elsewhere.
  virtual void settle() {}
  // True if plan() wants a Timeline: the trainer then measures one and calls plan() on every
  // rank after the first iteration (as DDP rebuilds its buckets after the first iteration).
  virtual bool plans_from_timeline() const { return false; }
  virtual void plan(const Timeline& /*timeline*/) {}
  // The size in bytes of each bucket, in launch order, as last planned; empty for a strategy
  // without buckets. The run record keeps it.
  virtual std::vector<int64_t> bucket_bytes() const { return {}; }
};

// A strategy's data movement on one flat tensor: on return t holds the SUM over ranks, on
// every rank. The engine in per_tensor.h adds modes and mean scaling.
using TensorSum = std::function<void(at::Tensor& t, Communicator& comm)>;

struct SyncSpec {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<GradSync>(const SyncOptions&)> make;
  std::vector<SyncMode> modes;  // the modes it supports, the first being its default
  // The aggregate is approximated (compression) or not formed every step (local SGD): the
  // exactness checks do not apply, each has tests of its own.
  bool lossy = false;
};

const std::vector<SyncSpec>& sync_registry();
// UserError listing the known names otherwise.
const SyncSpec& find_sync(const std::string& name);
// UserError unless spec has this mode: "sync bucketed has no mode stale (it has: ...)".
void require_mode(const SyncSpec& spec, SyncMode mode);

std::string to_string(SyncMode mode);
std::string to_string(Aggregate aggregate);
// UserError for an unknown name.
SyncMode parse_mode(const std::string& name);
Aggregate parse_aggregate(const std::string& name);

}  // namespace dtbench
