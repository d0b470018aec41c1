// plan_buckets: every parameter in exactly one bucket, in backward's order; no more buckets
// than the cap needs; none over the cap but by its last parameter; VGG-11's three buckets.
// plan_timed_buckets: the earliest end over every plan (brute force on small cases), then the
// earliest on a slower link, the cap, no empty bucket, and the two limits (free latency: one bucket
// per gradient; dear latency: one bucket).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "common/rng.h"
#include "models/make_model.h"
#include "plan/bucket_plan.h"

namespace dtbench {
namespace {

constexpr int64_t kMiB = 1024 * 1024;

void expect_valid(const std::vector<int64_t>& bytes, int64_t cap, int64_t first_cap) {
  auto plan = plan_buckets(bytes, cap, first_cap);
  size_t next = 0;
  for (const auto& bucket : plan) {
    ASSERT_FALSE(bucket.empty());
    int64_t before_last = 0;
    for (size_t k = 0; k < bucket.size(); ++k) {
      EXPECT_EQ(bucket[k], next++);  // backward's order, each once
      if (k + 1 < bucket.size()) before_last += bytes[bucket[k]];
    }
    EXPECT_LT(before_last, &bucket == &plan.front() ? first_cap : cap);
  }
  EXPECT_EQ(next, bytes.size());
  if (plan.empty()) return;
  const int64_t first = bucket_sizes(plan, bytes).front();
  const int64_t rest = std::accumulate(bytes.begin(), bytes.end(), int64_t{0}) - first;
  EXPECT_LE(static_cast<int64_t>(plan.size()), 1 + (rest + cap - 1) / cap);
}

TEST(BucketPlan, Vgg11At25MiBBalancesTheBucketsAfterTheFirst) {
  std::vector<int64_t> bytes;
  auto params = make_model("vgg11")->parameters();
  for (size_t i = params.size(); i-- > 0;) bytes.push_back(params[i].numel() * 4);
  auto plan = plan_buckets(bytes, 25 * kMiB, kMiB);
  ASSERT_EQ(plan.size(), 3u);
  auto sizes = bucket_sizes(plan, bytes);
  EXPECT_NEAR(sizes[0] / 1e6, 9.46, 0.01);   // the classifier and the last conv layer
  EXPECT_NEAR(sizes[1] / 1e6, 18.89, 0.01);  // the two conv layers before it
  EXPECT_NEAR(sizes[2] / 1e6, 8.58, 0.01);   // everything earlier
  expect_valid(bytes, 25 * kMiB, kMiB);
  // A cap above the whole gradient: the first bucket, then one more.
  EXPECT_EQ(plan_buckets(bytes, 50 * kMiB, kMiB).size(), 2u);
}

TEST(BucketPlan, RandomSizesKeepTheInvariants) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    std::vector<int64_t> bytes(1 + mix64(seed) % 40);
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] = 4 * static_cast<int64_t>(1 + mix64(seed * 1000 + i) % (mix64(seed) % 2 ? 300 : 3));
    }
    const int64_t cap = 4 * static_cast<int64_t>(1 + mix64(seed + 7) % 500);
    expect_valid(bytes, cap, std::min<int64_t>(cap, 64));
  }
}

TEST(BucketPlan, AParameterLargerThanTheCapTravelsAlone) {
  auto plan = plan_buckets({8, 1000, 8, 8}, 100, 8);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[1], std::vector<size_t>({1}));
  EXPECT_TRUE(plan_buckets({}, 100, 8).empty());
}

// Every valid plan of n parameters: each of the n - 1 gaps cut or not; a bucket within the cap
// unless one parameter holds all its bytes; no bucket of zero bytes unless it is all of them.
std::vector<BucketPlan> every_plan(const std::vector<int64_t>& bytes, int64_t cap) {
  std::vector<BucketPlan> plans;
  const size_t n = bytes.size();
  for (uint64_t cuts = 0; cuts < (uint64_t{1} << (n - 1)); ++cuts) {
    BucketPlan plan(1);
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 && (cuts >> (i - 1)) & 1) plan.emplace_back();
      plan.back().push_back(i);
    }
    bool valid = true;
    for (const auto& bucket : plan) {
      int64_t size = 0, largest = 0;
      for (size_t i : bucket) {
        size += bytes[i];
        largest = std::max(largest, bytes[i]);
      }
      valid = valid && (size <= cap || size == largest) && (size > 0 || plan.size() == 1);
    }
    if (valid) plans.push_back(plan);
  }
  return plans;
}

TEST(TimedBucketPlan, EndsAsEarlyAsTheBestOfEveryPlanThenOnSlowerLinksInAsFewBuckets) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const size_t n = 1 + mix64(seed) % 10;
    std::vector<int64_t> bytes(n);
    std::vector<double> ready(n);
    double t = 0;
    for (size_t i = 0; i < n; ++i) {
      bytes[i] = 4 * static_cast<int64_t>(mix64(seed * 100 + i) % (i % 4 == 3 ? 1 : 1000));
      t += static_cast<double>(mix64(seed * 100 + i + 50) % 100) * 1e-3;
      ready[i] = mix64(seed + i) % 17 == 0 ? -1 : t;  // now and then a gradient that never came
    }
    const int64_t cap = 4 * static_cast<int64_t>(200 + mix64(seed + 1) % 2000);
    const double latency = static_cast<double>(mix64(seed + 2) % 50) * 1e-3;
    const double rate = 1e4 * static_cast<double>(1 + mix64(seed + 3) % 100);
    const BucketPlan plan = plan_timed_buckets(bytes, ready, {latency, rate}, cap);

    // The earliest end; of those, the least sum of the ends on links at kSlowLinkShares of
    // the rate; of those, the fewest buckets.
    const LinkModel link{latency, rate};
    const auto slow_sum = [&](const BucketPlan& p) {
      double sum = 0;
      for (double share : kSlowLinkShares) {
        sum += predicted_end_s(p, bytes, ready, {latency, rate * share});
      }
      return sum;
    };
    const auto valid = every_plan(bytes, cap);
    double best = 1e300, best_slow = 1e300;
    for (const auto& other : valid)
      best = std::min(best, predicted_end_s(other, bytes, ready, link));
    for (const auto& other : valid) {
      if (predicted_end_s(other, bytes, ready, link) <= best + 1e-9) {
        best_slow = std::min(best_slow, slow_sum(other));
      }
    }
    size_t fewest = n;
    for (const auto& other : valid) {
      if (predicted_end_s(other, bytes, ready, link) <= best + 1e-9 &&
          slow_sum(other) <= best_slow + 1e-9) {
        fewest = std::min(fewest, other.size());
      }
    }
    EXPECT_NEAR(predicted_end_s(plan, bytes, ready, link), best, 1e-9) << "seed " << seed;
    EXPECT_NEAR(slow_sum(plan), best_slow, 1e-9) << "seed " << seed;
    EXPECT_EQ(plan.size(), fewest) << "seed " << seed;
    EXPECT_NE(std::find(valid.begin(), valid.end(), plan), valid.end()) << "seed " << seed;
  }
}

TEST(TimedBucketPlan, LatencyDecidesBetweenOneBucketPerGradientAndOneBucket) {
  const std::vector<int64_t> bytes = {400, 400, 400, 400};
  const std::vector<double> ready = {0.1, 0.2, 0.3, 0.4};
  // Free latency, each gradient taking as long as the gap to the next: each leaves as it
  // arrives.
  EXPECT_EQ(plan_timed_buckets(bytes, ready, {0, 4000}, 10000).size(), 4u);
  // Free latency and a fast link: only the last gradient must leave alone; the others, which
  // would wait for it anyway, go together (as early an end, fewer operations).
  const BucketPlan fast = plan_timed_buckets(bytes, ready, {0, 1e6}, 10000);
  EXPECT_EQ(fast, (BucketPlan{{0, 1, 2}, {3}}));
  // A latency far above the gaps between gradients: one allreduce after the last.
  EXPECT_EQ(plan_timed_buckets(bytes, ready, {10, 1e6}, 10000).size(), 1u);
  // ... unless the cap forbids it.
  EXPECT_EQ(plan_timed_buckets(bytes, ready, {10, 1e6}, 800).size(), 2u);
  EXPECT_TRUE(plan_timed_buckets({}, {}, {0.1, 1e6}, 100).empty());
}

TEST(TimedBucketPlan, OfPlansThatEndAtOnceKeepsTheOneWithSlackForASlowerLink) {
  // Each 1000-byte gradient takes 0.05 s at the measured rate. Joined, the first two leave at
  // 0.2 s and end at 0.3 s, when the last is ready: as early an end as one bucket each, in
  // fewer. At half the rate the joined bucket would end at 0.4 s and hold the last one back;
  // one bucket each would still end at 0.301 s.
  const std::vector<int64_t> bytes = {1000, 1000, 10};
  const std::vector<double> ready = {0.1, 0.2, 0.3};
  const LinkModel link{0, 2e4};
  ASSERT_EQ(kSlowLinkShares[0], 0.5);
  const BucketPlan joined = {{0, 1}, {2}};
  const BucketPlan apart = {{0}, {1}, {2}};
  EXPECT_NEAR(predicted_end_s(joined, bytes, ready, link),
              predicted_end_s(apart, bytes, ready, link), 1e-12);
  EXPECT_EQ(plan_timed_buckets(bytes, ready, link, 10000), apart);
  // Where the slower links too would end as early, the fewest buckets: at a quarter of the rate
  // the joined bucket ends at 0.6 s, when the last gradient is ready.
  ASSERT_GE(*std::min_element(std::begin(kSlowLinkShares), std::end(kSlowLinkShares)), 0.25);
  EXPECT_EQ(plan_timed_buckets(bytes, {0.1, 0.2, 0.6}, link, 10000), joined);
}

TEST(TimedBucketPlan, Vgg11SplitsTheTailThatBalancedBucketsLeaveExposed) {
  // VGG-11's gradients in backward's order, each ready when backward has done that share of
  // the convolutions' multiply-adds (image side 32, 16, 8, 8, 4, 4, 2, 2 for conv 1..8) in a
  // 0.6 s backward; a ring allreducing 78.7 MB/s (Gloo on the emulated 1 Gbit/s links).
  std::vector<int64_t> bytes;
  std::vector<double> work;
  const int64_t sides[] = {2, 2, 4, 4, 8, 8, 16, 32};  // conv 8 .. 1
  size_t conv = 0;
  auto params = make_model("vgg11")->parameters();
  for (size_t i = params.size(); i-- > 0;) {
    bytes.push_back(params[i].numel() * 4);
    const bool conv_weight = params[i].dim() == 4;
    work.push_back(conv_weight ? static_cast<double>(params[i].numel() * sides[conv] * sides[conv])
                               : 0.0);
    if (conv_weight) ++conv;
  }
  ASSERT_EQ(conv, 8u);
  const double total = std::accumulate(work.begin(), work.end(), 0.0);
  std::vector<double> ready;
  ready.reserve(work.size());
  double done = 0;
  for (double w : work) ready.push_back(0.6 * (done += w) / total);
  const auto balanced = plan_buckets(bytes, 25 * kMiB, kMiB);
  const auto timed = plan_timed_buckets(bytes, ready, {0.002, 78.7e6}, 25 * kMiB);
  const double balanced_end = predicted_end_s(balanced, bytes, ready, {0.002, 78.7e6});
  const double timed_end = predicted_end_s(timed, bytes, ready, {0.002, 78.7e6});
  EXPECT_LT(timed_end, balanced_end - 0.05);
  EXPECT_LT(bucket_sizes(timed, bytes).back(), bucket_sizes(balanced, bytes).back());
  for (int64_t size : bucket_sizes(timed, bytes)) EXPECT_LE(size, 25 * kMiB);
}

TEST(TimedBucketPlan, Vgg11KeepsTheLastLayersApartWhenBackwardRunsFasterThanIterationZero) {
  // A run's Timeline (model order, to the microsecond): iteration 0's ready times on the
  // emulated 1 Gbit/s cluster and its link probe. The first layer's gradients (convolution and
  // BatchNorm) came 0.26 s after the second convolution's; in the timed iterations, 0.15 s. Under
  // one slower link (half the rate) its plan ended in time: 9.47, 18.89 and 8.56 MB, the
  // last joining the 4.72 MB convolution with the three after it, and that bucket, which leaves
  // with the second convolution's gradient, left 0.043 s per iteration exposed.
  const std::vector<double> model_order = {
      1.402594, 1.403188, 1.397098, 1.397123, 1.135888, 1.139265, 1.022357, 1.022404, 1.000593,
      1.000634, 0.895559, 0.895576, 0.884343, 0.884391, 0.715944, 0.715961, 0.707872, 0.707941,
      0.598156, 0.598170, 0.588869, 0.591214, 0.381928, 0.381942, 0.379543, 0.379648, 0.160762,
      0.160779, 0.153287, 0.155456, 0.012641, 0.012656, 0.007560, 0.007461};
  auto params = make_model("vgg11")->parameters();
  ASSERT_EQ(params.size(), model_order.size());
  std::vector<int64_t> bytes;
  std::vector<double> ready;
  for (size_t i = params.size(); i-- > 0;) {
    bytes.push_back(params[i].numel() * 4);
    ready.push_back(model_order[i]);
  }
  // In iteration 0's time the run's link moved at about 0.39 of the probe (its buckets at about
  // 0.57 of it during backward, its gradients at 0.69 of iteration 0's times). There the plan
  // ends as early as one at a 1 MiB cap, each large layer in a bucket of its own. Plans that a
  // single slower link at half the rate could not tell from it ended 0.12 s (the run's) and
  // 0.23 s later.
  const LinkModel probed{0.000174207, 74.680526e6},
      seen{probed.latency_s, probed.bytes_per_s * 0.39};
  const auto plan = plan_timed_buckets(bytes, ready, probed, 25 * kMiB);
  const auto apart = plan_timed_buckets(bytes, ready, probed, kMiB);
  EXPECT_LE(predicted_end_s(plan, bytes, ready, seen),
            predicted_end_s(apart, bytes, ready, seen) + 1e-3);
}

}  // namespace
}  // namespace dtbench
