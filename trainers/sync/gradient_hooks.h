#pragma once
// Autograd hooks on parameters that are removed when their owner goes: a hook captures its owner
// (a strategy, a clock), and the parameters live on in the model after the owner is destroyed.
#include <ATen/core/Tensor.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace dtbench {

class GradientHooks {
 public:
  GradientHooks() = default;
  ~GradientHooks() { clear(); }
  GradientHooks(const GradientHooks&) = delete;
  GradientHooks& operator=(const GradientHooks&) = delete;

  // Calls fn(i, grad) with the gradient of params[i] as autograd computes it, before it is
  // accumulated into grad().
  template <typename Fn>
  void add(const std::vector<at::Tensor>& params, Fn fn) {
    for (size_t i = 0; i < params.size(); ++i) {
      unsigned id = params[i].register_hook([fn, i](const at::Tensor& grad) { fn(i, grad); });
      hooks_.emplace_back(params[i], id);
    }
  }

  void clear() {
    for (auto& [param, id] : hooks_) param.remove_hook(id);
    hooks_.clear();
  }

 private:
  std::vector<std::pair<at::Tensor, unsigned>> hooks_;
};

}  // namespace dtbench
