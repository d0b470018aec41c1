#pragma once
#include <functional>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/preprocess.h"

namespace dtbench {

// One row per dataset: its name, how to load it from a data directory, and how its bytes
// become model input.
struct DatasetSpec {
  std::string name;
  std::string description;
  std::function<Dataset(const std::string& data_dir, Split split)> load;
  Preprocess preprocess;
  int64_t channels;
};

const std::vector<DatasetSpec>& dataset_registry();

// The spec called name; UserError listing the known names otherwise.
const DatasetSpec& find_dataset(const std::string& name);

// Where the datasets are when no --data-dir is given: $DATA_DIR if set, else "data".
std::string default_data_dir();

}  // namespace dtbench
