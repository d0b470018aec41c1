#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dtbench {

// One row per model, with the optimiser settings the course uses for it: plain data, no
// libtorch (make_model.h builds one).
struct ModelSpec {
  std::string name;
  std::string description;
  int64_t in_channels;
  std::string default_dataset;
  int64_t global_batch;
  double lr;
  double momentum;
  double weight_decay;
};

const std::vector<ModelSpec>& model_registry();

// The spec called name; UserError listing the known names otherwise.
const ModelSpec& find_model(const std::string& name);

}  // namespace dtbench
