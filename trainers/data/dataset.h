#pragma once
#include <torch/types.h>

#include <string>
#include <vector>

namespace dtbench {

enum class Split { train, test };

// Both datasets label 10 classes, 0..9.
inline constexpr int kClasses = 10;

// A labelled image set held in memory as raw bytes, exactly as the official files store it.
struct Dataset {
  std::string name;                // e.g. "cifar10/train"
  torch::Tensor images;            // uint8 [N, C, H, W]
  torch::Tensor labels;            // int64 [N], each in [0, num_classes)
  std::vector<std::string> files;  // the files it was read from (checksummed in the record)

  int64_t size() const { return labels.size(0); }
};

}  // namespace dtbench
