#include "models/vgg11.h"

#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/pooling.h>

#include <vector>

namespace dtbench {
namespace {

constexpr int64_t kMaxPool = 0;  // marks an "M" entry of the configuration

torch::nn::Sequential make_features() {
  const std::vector<int64_t> cfg = {64,  kMaxPool, 128,      kMaxPool, 256, 256,     kMaxPool,
                                    512, 512,      kMaxPool, 512,      512, kMaxPool};
  torch::nn::Sequential layers;
  int64_t in_channels = 3;
  for (int64_t width : cfg) {
    if (width == kMaxPool) {
      layers->push_back(torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2).stride(2)));
      continue;
    }
    layers->push_back(torch::nn::Conv2d(
        torch::nn::Conv2dOptions(in_channels, width, /*kernel_size=*/3).padding(1).bias(true)));
    layers->push_back(torch::nn::BatchNorm2d(width));
    layers->push_back(torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
    in_channels = width;
  }
  return layers;
}

}  // namespace

Vgg11Impl::Vgg11Impl(int64_t num_classes)
    : features_(make_features()), classifier_(torch::nn::LinearOptions(512, num_classes)) {
  register_module("features", features_);
  register_module("classifier", classifier_);
}

torch::Tensor Vgg11Impl::forward(torch::Tensor images) {
  auto x = features_->forward(images);
  return classifier_->forward(x.flatten(/*start_dim=*/1));
}

}  // namespace dtbench
