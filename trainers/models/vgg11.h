#pragma once
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include "models/classifier.h"

namespace dtbench {

// VGG-11 for 32x32 inputs as in the CS744 template: configuration
// [64,M,128,M,256,256,M,512,512,M,512,512,M], each conv 3x3 padding 1 (with bias) followed by
// BatchNorm and ReLU, each M a 2x2 max-pool; then flatten and Linear(512, 10).
// 9,231,114 parameters in 34 tensors.
class Vgg11Impl : public ClassifierImpl {
 public:
  explicit Vgg11Impl(int64_t num_classes = 10);
  torch::Tensor forward(torch::Tensor images) override;

 private:
  torch::nn::Sequential features_;
  torch::nn::Linear classifier_;
};
TORCH_MODULE(Vgg11);

}  // namespace dtbench
