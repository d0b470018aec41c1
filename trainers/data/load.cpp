#include "data/load.h"

#include "catalogue/datasets.h"
#include "common/error.h"
#include "data/cifar10.h"
#include "data/mnist.h"

namespace dtbench {

Dataset load_dataset(const std::string& name, const std::string& data_dir, Split split) {
  const DatasetSpec& spec = find_dataset(name);  // UserError for an unknown name
  if (spec.name == "cifar10") return load_cifar10(data_dir, split);
  if (spec.name == "mnist") return load_mnist(data_dir, split);
  throw UserError("dataset " + name + ": no reader is built for it");
}

}  // namespace dtbench
