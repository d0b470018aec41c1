// A run's repetitions predicted each with the bucket plan it ran: bucketed times its plan, and two
// rounds of one configuration can send different buckets.
#include <gtest/gtest.h>

#include "report/predict/predict.h"

namespace dtbench {
namespace {

TrainRun repetition(int repeat, std::vector<int64_t> buckets) {
  TrainRun r;
  r.name = "scaling/sync=bucketed";
  r.kind = "train";
  r.repeat = repeat;
  r.record.bucket_bytes = std::move(buckets);
  return r;
}

TEST(RepetitionPlans, EachRepetitionWithItsOwnBucketsThenTheirMean) {
  model::ComputeProfile c;
  c.forward_s = 0.3, c.backward_s = 1.0;
  c.tensor_bytes = {1e6, 2e6, 3e6};
  c.ready_s = {1.0, 0.5, 0.2};
  model::Method m;
  m.sync = "bucketed";
  m.ranks = 4;
  m.options.mode = SyncMode::overlap;
  m.bucket_bytes = {5e6, 1e6};
  const model::Link link{1e-3, 1e7};
  SystemResults s;
  s.runs = {repetition(1, {5000000, 1000000}), repetition(2, {6000000})};
  model::Method one_bucket = m;
  one_bucket.bucket_bytes = {6e6};
  const model::Phases first = model::predict(c, m, link);
  const model::Phases second = model::predict(c, one_bucket, link);
  ASSERT_NE(first.sync_s, second.sync_s);  // the plans differ in what they leave exposed
  const model::Phases both = predicted_for_repetitions(s, s.runs[0], c, m, link);
  EXPECT_NEAR(both.sync_s, (first.sync_s + second.sync_s) / 2, 1e-12);
  EXPECT_NEAR(both.comm_s, (first.comm_s + second.comm_s) / 2, 1e-12);
  EXPECT_NEAR(both.total_s(), (first.total_s() + second.total_s()) / 2, 1e-12);
  // One repetition, or a method without buckets: the method as given.
  s.runs.pop_back();
  EXPECT_DOUBLE_EQ(predicted_for_repetitions(s, s.runs[0], c, m, link).sync_s, first.sync_s);
  model::Method per_tensor = m;
  per_tensor.sync = "allreduce";
  per_tensor.options.mode = SyncMode::blocking;
  per_tensor.bucket_bytes.clear();
  s.runs.push_back(repetition(2, {6000000}));
  EXPECT_DOUBLE_EQ(predicted_for_repetitions(s, s.runs[0], c, per_tensor, link).sync_s,
                   model::predict(c, per_tensor, link).sync_s);
}

}  // namespace
}  // namespace dtbench
