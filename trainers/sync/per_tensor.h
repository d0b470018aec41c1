#pragma once
#include <memory>

#include "sync/grad_sync.h"

namespace dtbench {

// Runs a strategy's TensorSum on every gradient tensor, one tensor at a time, in the mode asked:
// blocking (in finish(), on the gradients in place), overlap (from each parameter's gradient
// hook, on a copy, in a CommWorker thread; finish() waits) or stale (finish() keeps a copy of
// this step's gradients, hands it to the worker as the next step begins, and applies the previous
// step's results). Mean divides by n here.
std::unique_ptr<GradSync> make_per_tensor_sync(TensorSum sum, const SyncOptions& options);

}  // namespace dtbench
