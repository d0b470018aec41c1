#pragma once
// Why this file exists: Debian's libtorch-dev 1.13.1 ships
// torch/csrc/distributed/c10d/reducer.hpp, which includes this header, but not this header
// (it belongs to distributed autograd / RPC, which the package leaves out). c10d::Reducer and
// c10d::compute_bucket_assignment_by_size are exported by libtorch_cpu all the same.
// reducer.hpp needs only two names from here: DistAutogradContext::GradCallback (checked by a
// static_assert to be std::function<bool(at::Tensor&)>) and ContextPtr (a member's type in a
// struct the Reducer keeps for RPC, unused without it). Nothing here is ever defined or called.
//
// Only trainers/sync/c10d_ddp.cpp is compiled with this directory on its include path.
#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>

namespace torch {
namespace distributed {
namespace autograd {

class DistAutogradContext {
 public:
  using GradCallback = std::function<bool(at::Tensor&)>;
};

using ContextPtr = std::shared_ptr<DistAutogradContext>;

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
