#include "models/lenet5.h"

#include <torch/nn/functional/pooling.h>

namespace dtbench {

namespace F = torch::nn::functional;

LeNet5Impl::LeNet5Impl(int64_t num_classes)
    : conv1_(torch::nn::Conv2dOptions(1, 6, /*kernel_size=*/5)),
      conv2_(torch::nn::Conv2dOptions(6, 16, /*kernel_size=*/5)),
      conv3_(torch::nn::Conv2dOptions(16, 120, /*kernel_size=*/5)),
      fc1_(120, 84),
      fc2_(84, num_classes) {
  register_module("conv1", conv1_);
  register_module("conv2", conv2_);
  register_module("conv3", conv3_);
  register_module("fc1", fc1_);
  register_module("fc2", fc2_);
}

torch::Tensor LeNet5Impl::forward(torch::Tensor images) {
  auto pool = F::AvgPool2dFuncOptions(2);
  auto x = F::avg_pool2d(torch::tanh(conv1_->forward(images)), pool);
  x = F::avg_pool2d(torch::tanh(conv2_->forward(x)), pool);
  x = torch::tanh(conv3_->forward(x)).flatten(/*start_dim=*/1);
  return fc2_->forward(torch::tanh(fc1_->forward(x)));
}

}  // namespace dtbench
