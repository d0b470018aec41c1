// plan_buckets: every parameter in exactly one bucket, in backward's order; no more buckets
// than the cap needs; none over the cap but by its last parameter; VGG-11's three buckets.
#include <gtest/gtest.h>

#include <numeric>

#include "common/rng.h"
#include "models/models.h"
#include "sync/bucketed.h"

namespace dtbench {
namespace {

constexpr int64_t kMiB = 1024 * 1024;

std::vector<int64_t> bucket_bytes(const std::vector<std::vector<size_t>>& plan,
                                  const std::vector<int64_t>& bytes) {
  std::vector<int64_t> out;
  for (const auto& bucket : plan) {
    out.push_back(0);
    for (size_t i : bucket) out.back() += bytes[i];
  }
  return out;
}

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
  const int64_t first = bucket_bytes(plan, bytes).front();
  const int64_t rest = std::accumulate(bytes.begin(), bytes.end(), int64_t{0}) - first;
  EXPECT_LE(static_cast<int64_t>(plan.size()), 1 + (rest + cap - 1) / cap);
}

TEST(BucketPlan, Vgg11At25MiBBalancesTheBucketsAfterTheFirst) {
  std::vector<int64_t> bytes;
  auto params = find_model("vgg11").make()->parameters();
  for (size_t i = params.size(); i-- > 0;) bytes.push_back(params[i].numel() * 4);
  auto plan = plan_buckets(bytes, 25 * kMiB, kMiB);
  ASSERT_EQ(plan.size(), 3u);
  auto sizes = bucket_bytes(plan, bytes);
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

}  // namespace
}  // namespace dtbench
