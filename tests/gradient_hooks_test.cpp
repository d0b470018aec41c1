// GradientHooks: each parameter's function sees its gradient once per backward, with the
// parameter's index, and never again once the hooks are cleared or their owner is destroyed
// (the strategies' and the gradient clock's hooks capture their owner).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "sync/gradient_hooks.h"

namespace dtbench {
namespace {

struct Params {
  std::vector<at::Tensor> tensors = {torch::ones({3}, torch::requires_grad()),
                                     torch::ones({2, 2}, torch::requires_grad())};
  void backward() const { (tensors[0].sum() * 2 + tensors[1].sum() * 3).backward(); }
};

TEST(GradientHooks, SeeEachGradientWithItsIndexUntilCleared) {
  Params p;
  std::vector<int> calls(2, 0);
  std::vector<float> first_value(2, 0);
  GradientHooks hooks;
  hooks.add(p.tensors, [&](size_t i, const at::Tensor& grad) {
    ++calls[i];
    first_value[i] = grad.flatten()[0].item<float>();
  });
  p.backward();
  EXPECT_EQ(calls, (std::vector<int>{1, 1}));
  EXPECT_EQ(first_value, (std::vector<float>{2, 3}));
  hooks.clear();
  p.backward();
  EXPECT_EQ(calls, (std::vector<int>{1, 1}));
  // The gradients still accumulate as without hooks.
  EXPECT_TRUE(p.tensors[1].grad().equal(torch::full({2, 2}, 6.0f)));
}

TEST(GradientHooks, AreRemovedWithTheirOwner) {
  Params p;
  int calls = 0;
  {
    GradientHooks hooks;
    hooks.add(p.tensors, [&](size_t, const at::Tensor&) { ++calls; });
    p.backward();
  }
  EXPECT_EQ(calls, 2);
  p.backward();
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace dtbench
