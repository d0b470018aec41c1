#include "catalogue/models.h"

#include <fmt/format.h>

#include "common/error.h"
#include "common/registry.h"

namespace dtbench {

const std::vector<ModelSpec>& model_registry() {
  static const std::vector<ModelSpec> registry = {
      {"vgg11", "VGG-11 with BatchNorm for CIFAR-10 (9,231,114 parameters)", 3, "cifar10",
       /*global_batch=*/256,
       /*lr=*/0.1, /*momentum=*/0.9, /*weight_decay=*/1e-4},
      {"lenet5", "LeNet-5 for MNIST padded to 32x32 (61,706 parameters)", 1, "mnist",
       /*global_batch=*/64,
       /*lr=*/0.01, /*momentum=*/0.9, /*weight_decay=*/0.0},
  };
  return registry;
}

const ModelSpec& find_model(const std::string& name) {
  return find_by_name(model_registry(), name, "model");
}

}  // namespace dtbench
