#pragma once
#include <cstdint>
#include <vector>

namespace dtbench {

// This rank's share of an epoch, as torch.utils.data.DistributedSampler (drop_last=False)
// deals it: a (seed, epoch)-fixed permutation, padded by wrapping around to a multiple of the
// world size, of which rank r takes positions r, r + n, r + 2n, ... . Batch i of every rank
// together is therefore exactly batch i of a single process with the n-times-larger batch.
class ShardSampler {
 public:
  ShardSampler(int64_t dataset_size, int world_size, int rank, uint64_t seed, bool shuffle);

  // Re-deals the shares for this epoch (without it every epoch repeats the same order).
  void set_epoch(uint64_t epoch);

  const std::vector<int64_t>& indices() const { return indices_; }
  int64_t num_batches(int64_t batch_size) const;
  // Batch b of this rank: indices()[b*batch_size .. ), the last one possibly shorter.
  std::vector<int64_t> batch(int64_t b, int64_t batch_size) const;

 private:
  int64_t dataset_size_;
  int world_size_;
  int rank_;
  uint64_t seed_;
  bool shuffle_;
  std::vector<int64_t> indices_;
};

}  // namespace dtbench
