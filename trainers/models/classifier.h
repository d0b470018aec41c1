#pragma once
#include <torch/nn/module.h>
#include <torch/types.h>

#include <memory>

namespace dtbench {

// What the trainer needs of a model: a module mapping [B, C, H, W] images to [B, classes]
// logits. Every model in models/ derives from it.
class ClassifierImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor images) = 0;
};

using Classifier = std::shared_ptr<ClassifierImpl>;

}  // namespace dtbench
