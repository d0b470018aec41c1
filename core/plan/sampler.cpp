#include "plan/sampler.h"

#include <fmt/core.h>

#include <numeric>

#include "common/error.h"
#include "common/rng.h"

namespace dtbench {

ShardSampler::ShardSampler(int64_t dataset_size, int world_size, int rank, uint64_t seed,
                           bool shuffle)
    : dataset_size_(dataset_size),
      world_size_(world_size),
      rank_(rank),
      seed_(seed),
      shuffle_(shuffle) {
  require(dataset_size > 0, "the dataset is empty");
  require(world_size > 0 && rank >= 0 && rank < world_size,
          fmt::format("rank {} is outside a world of {}", rank, world_size));
  set_epoch(0);
}

void ShardSampler::set_epoch(uint64_t epoch) {
  std::vector<int64_t> order;
  if (shuffle_) {
    order = seeded_permutation(dataset_size_, seed_, epoch);
  } else {
    order.resize(static_cast<size_t>(dataset_size_));
    std::iota(order.begin(), order.end(), 0);
  }
  int64_t per_rank = (dataset_size_ + world_size_ - 1) / world_size_;
  indices_.clear();
  for (int64_t k = 0; k < per_rank; ++k) {
    indices_.push_back(order[(rank_ + k * world_size_) % dataset_size_]);
  }
}

int64_t ShardSampler::num_batches(int64_t batch_size) const {
  return (static_cast<int64_t>(indices_.size()) + batch_size - 1) / batch_size;
}

std::vector<int64_t> ShardSampler::batch(int64_t b, int64_t batch_size) const {
  auto first = indices_.begin() + b * batch_size;
  auto last = indices_.begin() + std::min<int64_t>((b + 1) * batch_size, indices_.size());
  return {first, last};
}

}  // namespace dtbench
