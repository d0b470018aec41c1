// The strategies' factories, one per method of the catalogue (catalogue/methods.h).
#include <functional>
#include <map>

#include "common/error.h"
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

using Factory = std::function<std::unique_ptr<GradSync>(const SyncOptions&)>;

using HookMaker = std::unique_ptr<BucketHook> (*)(const SyncOptions&);

// The hooks on the bucketed engine's buckets (bucket_hook.h), one per hooked method.
const std::map<std::string, HookMaker>& hook_makers() {
  static const std::map<std::string, HookMaker> table = {
      {"fp16", make_fp16_hook},
      {"powersgd", make_powersgd_hook},
      {"topk", make_topk_hook},
      {"hierarchical", make_hierarchical_hook},
  };
  return table;
}

Factory per_tensor(TensorSum sum) {
  return [sum](const SyncOptions& o) { return make_per_tensor_sync(sum, o); };
}

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> table = [] {
    std::map<std::string, Factory> made = {
        {"none", [](const SyncOptions&) { return std::make_unique<NoSync>(); }},
        {"gather_scatter", per_tensor(gather_scatter_sum)},
        {"reduce_broadcast", per_tensor(reduce_broadcast_sum)},
        {"allreduce", per_tensor(allreduce_sum)},
        {"allgather", per_tensor(allgather_sum)},
        {"ring_reduce", per_tensor(ring_reduce_sum)},
        {"ring_allreduce", per_tensor(ring_allreduce_sum)},
        {"bucketed", make_bucketed_sync},
        {"c10d_ddp", make_c10d_ddp_sync},
        {"local_sgd", make_local_sgd_sync},
    };
    for (const auto& [name, make_hook] : hook_makers()) {
      made[name] = [make_hook = make_hook](const SyncOptions& o) {
        return make_hooked_bucket_sync(make_hook(o), o);
      };
    }
    return made;
  }();
  return table;
}

}  // namespace

std::unique_ptr<GradSync> make_sync(const std::string& name, const SyncOptions& options) {
  const SyncMethod& method = find_method(name);  // UserError for an unknown name
  auto it = factories().find(method.name);
  if (it == factories().end()) throw UserError("sync " + name + ": no strategy is built for it");
  return it->second(options);
}

std::unique_ptr<BucketHook> make_bucket_hook(const std::string& name, const SyncOptions& options) {
  auto it = hook_makers().find(find_method(name).name);
  if (it == hook_makers().end()) throw UserError("sync " + name + " is not a hook on buckets");
  return it->second(options);
}

bool has_factory(const std::string& name) {
  return factories().count(name) > 0;
}

}  // namespace dtbench
