#pragma once
#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "catalogue/datasets.h"
#include "data/dataset.h"

namespace dtbench {

// Where sample `index` is cut from in `epoch`: source (y, x) = (oy + y, ox + x') with
// x' = flip ? out-1-x : x. A pure function of (seed, epoch, index), so it is the same whichever
// rank draws the sample.
struct Placement {
  int64_t oy = 0;
  int64_t ox = 0;
  bool flip = false;
};
Placement placement_for(const Preprocess& pre, int64_t in_size, bool train, uint64_t seed,
                        uint64_t epoch, int64_t index);

struct Batch {
  torch::Tensor images;  // float32 [B, C, out_size, out_size]
  torch::Tensor labels;  // int64 [B]
};

// The batch of the given sample indices, preprocessed (augmented when train && pre.augment).
Batch make_batch(const Dataset& ds, const std::vector<int64_t>& indices, const Preprocess& pre,
                 bool train, uint64_t seed, uint64_t epoch);

}  // namespace dtbench
