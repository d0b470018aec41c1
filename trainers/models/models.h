#pragma once
#include <functional>
#include <string>
#include <vector>

#include "models/classifier.h"

namespace dtbench {

// One row per model, with the optimiser settings the course uses for it.
struct ModelSpec {
  std::string name;
  std::string description;
  std::function<Classifier()> make;
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
