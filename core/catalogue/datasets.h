#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dtbench {

// How raw bytes become a model's input: placement into an out_size x out_size frame
// (zero-padded, as torchvision pads the image before ToTensor), then (x/255 - mean) / std per
// channel. With augment, training samples get the CS744 augmentation: a random crop of
// out_size from the image padded by crop_padding, then a random horizontal flip.
struct Preprocess {
  std::vector<float> mean;  // per channel, in [0, 1] units
  std::vector<float> std;
  int64_t out_size = 32;
  bool augment = false;
  int64_t crop_padding = 4;
};

// One row per dataset: its name and how its bytes become model input; plain data, no libtorch
// (load.h reads one from a data directory).
struct DatasetSpec {
  std::string name;
  std::string description;
  Preprocess preprocess;
  int64_t channels;
  std::string dir;  // its folder under the data directory, as `make data` unpacks it
};

const std::vector<DatasetSpec>& dataset_registry();

// The spec called name; UserError listing the known names otherwise.
const DatasetSpec& find_dataset(const std::string& name);

// Where the datasets are when no --data-dir is given: $DATA_DIR if set, else "data".
std::string default_data_dir();

}  // namespace dtbench
