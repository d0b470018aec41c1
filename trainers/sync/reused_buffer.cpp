#include <ATen/ATen.h>

#include "sync/strategies.h"

namespace dtbench {

at::Tensor reused_buffer(int64_t numel, const at::TensorOptions& options) {
  thread_local at::Tensor kept;
  if (!kept.defined() || kept.numel() < numel || kept.dtype() != options.dtype()) {
    kept = at::empty({numel}, options);
  }
  return kept.narrow(0, 0, numel);
}

}  // namespace dtbench
