#include "catalogue/datasets.h"

#include <fmt/format.h>

#include <cstdlib>

#include "common/error.h"
#include "common/registry.h"

namespace dtbench {

const std::vector<DatasetSpec>& dataset_registry() {
  static const std::vector<DatasetSpec> registry = {
      {"cifar10", "CIFAR-10 binary version: 50,000 train / 10,000 test RGB 32x32",
       // CS744's normalisation; crop 32 with padding 4 and horizontal flip when training.
       Preprocess{{125.3f / 255, 123.0f / 255, 113.9f / 255},
                  {63.0f / 255, 62.1f / 255, 66.7f / 255},
                  /*out_size=*/32,
                  /*augment=*/true},
       3, "cifar-10-batches-bin"},
      {"mnist", "MNIST idx (gzipped or not): grey 28x28, padded to 32x32 for LeNet-5",
       Preprocess{{0.1307f}, {0.3081f}, /*out_size=*/32, /*augment=*/false}, 1, "mnist"},
  };
  return registry;
}

const DatasetSpec& find_dataset(const std::string& name) {
  return find_by_name(dataset_registry(), name, "dataset");
}

std::string default_data_dir() {
  const char* env = std::getenv("DATA_DIR");
  return env != nullptr && *env != '\0' ? env : "data";
}

}  // namespace dtbench
