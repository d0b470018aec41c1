// Every strategy in every mode over Gloo, ranks as threads, on 1-4 ranks: the synchronised
// gradient equals the reference mean (or sum) of the ranks' gradients to 1e-6.
#include <ATen/ATen.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "common/error.h"
#include "sync_checks.h"
#include "thread_ranks.h"

namespace dtbench::testing {
namespace {

using Case = std::tuple<std::pair<std::string, SyncMode>, int>;

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto& [strategy, ranks] = info.param;
  return strategy.first + "_" + to_string(strategy.second) + "_" + std::to_string(ranks) + "ranks";
}

// The methods and modes offered over Gloo with this aggregate (c10d_ddp averages only): the
// cases instantiated, so that none is skipped.
std::vector<std::pair<std::string, SyncMode>> offered(Aggregate aggregate) {
  std::vector<std::pair<std::string, SyncMode>> cases;
  for (const auto& c : all_strategy_modes()) {
    if (supports(c.first, "gloo", aggregate)) cases.push_back(c);
  }
  return cases;
}

class GlooStrategy : public ::testing::TestWithParam<Case> {
 protected:
  void expect_exact(Aggregate aggregate, const Shapes& shapes, double bucket_mb) {
    const auto& [strategy, ranks] = GetParam();
    // Named copies: a lambda may not capture structured bindings before C++20.
    const std::string name = strategy.first;
    const SyncMode mode = strategy.second;
    run_gloo_ranks(ranks, [&](Communicator& comm) {
      double error = strategy_error(comm, name, mode, aggregate, shapes, bucket_mb);
      EXPECT_GE(error, 0) << "rank " << comm.rank() << ": finish() misreported the step";
      EXPECT_LE(error, 1e-6) << "rank " << comm.rank();
    });
  }
};

class GlooStrategySum : public GlooStrategy {};

TEST_P(GlooStrategy, MeanOfAwkwardSizes) {
  expect_exact(Aggregate::mean, awkward_shapes(), 0.001);
}
TEST_P(GlooStrategySum, SumOfAwkwardSizes) {
  expect_exact(Aggregate::sum, awkward_shapes(), 0.001);
}

INSTANTIATE_TEST_SUITE_P(All, GlooStrategy,
                         ::testing::Combine(::testing::ValuesIn(offered(Aggregate::mean)),
                                            ::testing::Values(1, 2, 3, 4)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(All, GlooStrategySum,
                         ::testing::Combine(::testing::ValuesIn(offered(Aggregate::sum)),
                                            ::testing::Values(1, 2, 3, 4)),
                         case_name);

class GlooVgg : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(GlooVgg, MeanOfVgg11Gradients) {
  const std::string name = std::get<0>(GetParam());
  const int ranks = std::get<1>(GetParam());
  const SyncMode mode = find_method(name).modes.front();
  const Shapes shapes = vgg11_shapes();
  run_gloo_ranks(ranks, [&](Communicator& comm) {
    double error = strategy_error(comm, name, mode, Aggregate::mean, shapes, /*bucket_mb=*/25);
    EXPECT_GE(error, 0);
    EXPECT_LE(error, 1e-6) << "rank " << comm.rank();
  });
}

INSTANTIATE_TEST_SUITE_P(All, GlooVgg,
                         ::testing::Combine(::testing::Values("gather_scatter", "reduce_broadcast",
                                                              "allreduce", "allgather",
                                                              "ring_reduce", "ring_allreduce",
                                                              "bucketed", "c10d_ddp"),
                                            ::testing::Values(1, 2, 3, 4)));

TEST(GlooCommunicator, CarriesEveryTypeInItsOwnType) {
  for (int n = 1; n <= 4; ++n) {
    run_gloo_ranks(n, [](Communicator& comm) {
      auto problems = typed_operation_problems(comm);
      EXPECT_TRUE(problems.empty()) << fmt::format("{}", fmt::join(problems, "\n"));
    });
  }
}

// Without a hook, bucketed hands each parameter a view of its bucket (DDP's
// gradient_as_bucket_view): no copy out after the last allreduce. Three tensors in one bucket:
// their gradients share one storage, laid end to end, and hold the mean, step after step.
TEST(Bucketed, GradientsAreViewsOfTheirBucket) {
  for (SyncMode mode : {SyncMode::blocking, SyncMode::overlap}) {
    run_gloo_ranks(2, [mode](Communicator& comm) {
      SyncOptions options;
      options.mode = mode;
      options.bucket_mb = 25;
      std::unique_ptr<GradSync> sync = make_sync("bucketed", options);
      std::vector<at::Tensor> params;
      for (int64_t n : {3, 5, 2}) params.push_back(at::zeros({n}).requires_grad_(true));
      sync->setup(params, comm);
      for (int step = 0; step < 3; ++step) {
        std::vector<at::Tensor> grads;
        grads.reserve(params.size());
        for (const auto& p : params) grads.push_back(at::full_like(p, comm.rank() + step));
        ASSERT_TRUE(step_with(*sync, params, grads));
        const at::Tensor& first = params[0].grad();
        for (size_t i = 0; i < params.size(); ++i) {
          const at::Tensor& g = params[i].grad();
          EXPECT_TRUE(g.is_view()) << i;
          EXPECT_TRUE(g.storage().is_alias_of(first.storage())) << i;
          EXPECT_TRUE(at::allclose(g, at::full_like(g, 0.5 + step))) << i << " step " << step;
        }
        EXPECT_EQ(params[1].grad().data_ptr<float>(), params[2].grad().data_ptr<float>() + 2);
        EXPECT_EQ(params[0].grad().data_ptr<float>(), params[1].grad().data_ptr<float>() + 5);
      }
    });
  }
}

TEST(C10dDdp, RefusesSumAggregation) {
  run_gloo_ranks(2, [](Communicator& comm) {
    EXPECT_THROW(strategy_error(comm, "c10d_ddp", SyncMode::overlap, Aggregate::sum, {{3}}),
                 UserError);
  });
}

}  // namespace
}  // namespace dtbench::testing
