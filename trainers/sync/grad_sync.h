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

#include "catalogue/methods.h"
#include "comm/communicator.h"

namespace dtbench {

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

// The strategy of the catalogue's method called name (catalogue/methods.h), built with these
// options. UserError listing the known names otherwise.
std::unique_ptr<GradSync> make_sync(const std::string& name, const SyncOptions& options);
// Whether registry.cpp has a factory for the method called name (the catalogue and the
// factories are checked against each other by tests/methods_test.cpp).
bool has_factory(const std::string& name);

}  // namespace dtbench
