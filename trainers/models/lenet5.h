#pragma once
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include "models/classifier.h"

namespace dtbench {

// LeNet-5 (LeCun et al. 1998) on 32x32 grey images: conv 6@5x5, tanh, avg-pool 2; conv
// 16@5x5, tanh, avg-pool 2; conv 120@5x5, tanh; fc 84, tanh; fc 10. 61,706 parameters.
class LeNet5Impl : public ClassifierImpl {
 public:
  explicit LeNet5Impl(int64_t num_classes = 10);
  torch::Tensor forward(torch::Tensor images) override;

 private:
  torch::nn::Conv2d conv1_, conv2_, conv3_;
  torch::nn::Linear fc1_, fc2_;
};
TORCH_MODULE(LeNet5);

}  // namespace dtbench
