// The one table of gradient-synchronisation strategies.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "common/error.h"
#include "common/registry.h"
#include "sync/bucketed.h"
#include "sync/c10d_ddp.h"
#include "sync/compression.h"
#include "sync/grad_sync.h"
#include "sync/per_tensor.h"
#include "sync/strategies.h"

namespace dtbench {
namespace {

// none: every rank keeps its own gradient (one process, or independent workers).
class NoSync : public GradSync {
 public:
  void setup(const std::vector<at::Tensor>&, Communicator&) override {}
  bool finish() override { return true; }
};

const std::vector<SyncMode> kEveryMode = {SyncMode::blocking, SyncMode::overlap, SyncMode::stale};

// A compressing hook on the bucketed engine's buckets (bucket_hook.h).
SyncSpec hooked(const char* name, const char* description,
                std::unique_ptr<BucketHook> (*make_hook)(const SyncOptions&), bool lossy = true) {
  return {name,
          description,
          [make_hook](const SyncOptions& o) { return make_hooked_bucket_sync(make_hook(o), o); },
          {SyncMode::overlap, SyncMode::blocking},
          lossy};
}

SyncSpec per_tensor(const char* name, const char* description, TensorSum sum) {
  return {name, description, [sum](const SyncOptions& o) { return make_per_tensor_sync(sum, o); },
          kEveryMode};
}

}  // namespace

const std::vector<SyncSpec>& sync_registry() {
  static const std::vector<SyncSpec> registry = {
      {"none", "nothing moves: every rank keeps its own gradient",
       [](const SyncOptions&) { return std::make_unique<NoSync>(); }, kEveryMode},
      per_tensor("gather_scatter", "per tensor: gather to rank 0, sum there, scatter back",
                 gather_scatter_sum),
      per_tensor("reduce_broadcast", "per tensor: reduce to rank 0, broadcast",
                 reduce_broadcast_sum),
      per_tensor("allreduce", "per tensor: the backend's allreduce(sum)", allreduce_sum),
      per_tensor("allgather", "per tensor: allgather, every rank sums locally", allgather_sum),
      per_tensor("ring_reduce",
                 "per tensor, hand-written: chain reduce around the ring to "
                 "rank 0, then pass the sum around",
                 ring_reduce_sum),
      per_tensor("ring_allreduce",
                 "per tensor, hand-written on isend/irecv: reduce-scatter + "
                 "allgather in n chunks",
                 ring_allreduce_sum),
      {"bucketed",
       "DDP's algorithm, ours: reverse-order flat buckets of --bucket-mb, "
       "iallreduce launched from gradient hooks during backward",
       make_bucketed_sync,
       {SyncMode::overlap, SyncMode::blocking}},
      {"c10d_ddp",
       "the real PyTorch DDP engine: c10d::Reducer over ProcessGroupGloo (--backend gloo)",
       make_c10d_ddp_sync,
       {SyncMode::overlap}},
      hooked("fp16",
             "buckets as bucketed, each cast to float16 and allreduced in float16 "
             "(PyTorch's fp16_compress_hook)",
             make_fp16_hook),
      hooked("powersgd",
             "buckets as bucketed, each matrix sent as rank --powersgd-rank factors with error "
             "feedback after --powersgd-start plain iterations (PyTorch's powerSGD_hook)",
             make_powersgd_hook),
      hooked("topk",
             "buckets as bucketed, each sending its --topk-fraction largest entries by "
             "allgather of (index, value), the rest kept as error feedback",
             make_topk_hook),
      hooked("hierarchical",
             "buckets as bucketed, each summed within the host to its first rank, allreduced "
             "among those, broadcast within the host (hosts: --ranks-per-host or host names)",
             make_hierarchical_hook, /*lossy=*/false),
      {"local_sgd",
       "no gradient moves: each rank steps alone, parameters averaged every "
       "--local-sgd-period steps",
       make_local_sgd_sync,
       {SyncMode::blocking},
       /*lossy=*/true},
  };
  return registry;
}

const SyncSpec& find_sync(const std::string& name) {
  return find_by_name(sync_registry(), name, "sync strategy");
}

std::string to_string(SyncMode mode) {
  switch (mode) {
    case SyncMode::blocking:
      return "blocking";
    case SyncMode::overlap:
      return "overlap";
    case SyncMode::stale:
      return "stale";
  }
  return "?";
}

std::string to_string(Aggregate aggregate) {
  return aggregate == Aggregate::mean ? "mean" : "sum";
}

SyncMode parse_mode(const std::string& name) {
  for (SyncMode m : kEveryMode) {
    if (to_string(m) == name) return m;
  }
  throw UserError(fmt::format("unknown mode '{}' (known: blocking, overlap, stale)", name));
}

void require_mode(const SyncSpec& spec, SyncMode mode) {
  if (std::find(spec.modes.begin(), spec.modes.end(), mode) != spec.modes.end()) return;
  std::vector<std::string> names;
  for (SyncMode m : spec.modes) names.push_back(to_string(m));
  throw UserError(fmt::format("sync {} has no mode {} (it has: {})", spec.name, to_string(mode),
                              fmt::join(names, ", ")));
}

Aggregate parse_aggregate(const std::string& name) {
  if (name == "mean") return Aggregate::mean;
  if (name == "sum") return Aggregate::sum;
  throw UserError(fmt::format("unknown aggregate '{}' (known: mean, sum)", name));
}

}  // namespace dtbench
