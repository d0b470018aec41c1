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

// A strategy and mode, checked on 1 to 4 ranks in one test: each test is a process that loads
// libtorch (0.7 s on a 2-core VM), which took longer than the small tensors' checks.
using Case = std::pair<std::string, SyncMode>;

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.first + "_" + to_string(info.param.second);
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
    const auto& [name, mode] = GetParam();
    for (int ranks = 1; ranks <= 4; ++ranks) {
      // The ranks are threads: gtest's SCOPED_TRACE would not reach their failures.
      run_gloo_ranks(ranks, [&, name = name, mode = mode](Communicator& comm) {
        const std::string who = fmt::format("rank {} of {}", comm.rank(), comm.size());
        double error = strategy_error(comm, name, mode, aggregate, shapes, bucket_mb);
        EXPECT_GE(error, 0) << who << ": finish() misreported the step";
        EXPECT_LE(error, 1e-6) << who;
      });
    }
  }
};

class GlooStrategySum : public GlooStrategy {};

TEST_P(GlooStrategy, MeanOfAwkwardSizes) {
  expect_exact(Aggregate::mean, awkward_shapes(), 0.001);
}
TEST_P(GlooStrategySum, SumOfAwkwardSizes) {
  expect_exact(Aggregate::sum, awkward_shapes(), 0.001);
}

INSTANTIATE_TEST_SUITE_P(All, GlooStrategy, ::testing::ValuesIn(offered(Aggregate::mean)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(All, GlooStrategySum, ::testing::ValuesIn(offered(Aggregate::sum)),
                         case_name);

// VGG-11's sizes (buckets of 25 MB and tensors of up to 9 MB) on 2 to 4 ranks: one rank sends
// nothing, and MeanOfAwkwardSizes covers it.
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
                                            ::testing::Values(2, 3, 4)));

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
