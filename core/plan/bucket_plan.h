#pragma once
// How `bucketed` cuts the gradient into buckets. The plans take each parameter's size in bytes
// in the order backward produces the gradients, and return the buckets as runs of indices into
// it, in that order; a parameter is never split.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dtbench {

using BucketPlan = std::vector<std::vector<size_t>>;

// Before anything is measured. The first bucket closes at first_cap bytes (DDP's 1 MiB). The
// rest need k = ceil(rest / cap) buckets under the cap; where DDP fills each to the cap and
// leaves the remainder last, these close at rest / k, so that no bucket waits for more of
// backward than it must (on VGG-11 at 25 MiB: 9.5, 18.9 and 8.6 MB instead of 9.5, 27.1 and
// 0.3 MB, whose middle bucket could leave only after 86% of backward).
BucketPlan plan_buckets(const std::vector<int64_t>& bytes, int64_t cap, int64_t first_cap);

// Each bucket's bytes.
std::vector<int64_t> bucket_sizes(const BucketPlan& plan, const std::vector<int64_t>& bytes);

// The cost of allreducing buckets one after another, backward starting at time 0: a bucket
// leaves once its last gradient is ready and the allreduce before it has ended, and takes
// latency_s + bytes / bytes_per_s.
struct LinkModel {
  double latency_s = 0;
  double bytes_per_s = 0;
};

// The finish time of the last allreduce of `plan` (0 for no buckets). ready_s is in the order
// of bytes; negative: never ready, taken as the last one ready.
double predicted_end_s(const BucketPlan& plan, const std::vector<int64_t>& bytes,
                       const std::vector<double>& ready_s, const LinkModel& link);

// The shares of the measured rate at which the tie-break below also prices each plan. The
// plan's inputs are optimistic: the rate is probed with the link alone, and iteration 0's
// backward is slower than the timed ones. On the emulated 1 Gbit/s cluster the buckets moved at
// 0.55-0.85 of the probe's rate during backward, and the gradients came at 0.69-0.85 of
// iteration 0's ready times: in iteration 0's time, the link moved at about 0.38-0.72 of the
// probe. One share alone leaves ties: where the link waits for backward even at that share,
// joins that cost time at a slower one look free (a 25 MiB plan that joined the early
// convolutions into an 8.56 MB bucket left 0.043 s per iteration exposed).
constexpr double kSlowLinkShares[] = {0.5, 0.35, 0.25};

// The plan that ends earliest under the model; of those, the one whose ends at kSlowLinkShares
// of the rate add up to the least; of those, the one with the fewest buckets. Where the link
// waits for backward, many plans end at once, and the fewest buckets alone would join late
// layers into buckets that only just end in time; the second criterion keeps the slack that a
// slower link needs. No bucket is over the cap unless one parameter holds all its bytes, and
// none is empty (zero-byte parameters join a neighbour). Exact: dynamic programming over the
// number of buckets and the cut points, keeping for each the plans that no other beats at
// every rate (VGG-11 has 34 parameters).
BucketPlan plan_timed_buckets(const std::vector<int64_t>& bytes, const std::vector<double>& ready_s,
                              const LinkModel& link, int64_t cap);

}  // namespace dtbench
