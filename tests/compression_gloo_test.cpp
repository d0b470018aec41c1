// The lossy strategies (fp16, powersgd, topk, local_sgd) over Gloo, ranks as threads, on 1-4
// ranks: their own checks (compression_checks.h) and their training (train_checks.h).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>

#include "compression_checks.h"
#include "fixtures.h"
#include "sync_checks.h"
#include "thread_ranks.h"
#include "train_checks.h"

namespace dtbench::testing {
namespace {

using Checks = std::function<std::vector<std::string>(Communicator&)>;

void expect_none_on_1_to_4_ranks(const Checks& checks) {
  for (int n = 1; n <= 4; ++n) {
    run_gloo_ranks(n, [&](Communicator& comm) {
      auto problems = checks(comm);
      EXPECT_TRUE(problems.empty()) << n << " ranks, rank " << comm.rank() << ":\n"
                                    << fmt::format("{}", fmt::join(problems, "\n"));
    });
  }
}

TEST(GlooCompression, Fp16IsWithinFloat16Rounding) {
  expect_none_on_1_to_4_ranks(fp16_problems);
}
TEST(GlooCompression, TopkOfAllIsExactAndErrorFeedbackSendsTheRest) {
  expect_none_on_1_to_4_ranks(topk_problems);
}
TEST(GlooCompression, PowerSgdIsExactBeforeItsStartAndOnRankOneGradients) {
  expect_none_on_1_to_4_ranks(powersgd_problems);
}
TEST(GlooCompression, HierarchicalIsExactForEveryHostLayout) {
  expect_none_on_1_to_4_ranks(hierarchical_problems);
}
TEST(GlooCommunicator, SplitsByColor) {
  expect_none_on_1_to_4_ranks(split_problems);
}
TEST(GlooCompression, PayloadPerIterationMatchesEachFormula) {
  expect_none_on_1_to_4_ranks(payload_problems);
}

TEST(GlooCompression, LocalSgdEveryStepAndTopkOfAllTrainAsAllreduce) {
  TempDir dir;
  write_mnist(dir.path(), 320, 40, /*gzip=*/false);
  run_gloo_ranks(4, [&](Communicator& comm) {
    auto problems = lossy_training_problems(comm, dir.path());
    EXPECT_TRUE(problems.empty()) << "rank " << comm.rank() << ":\n"
                                  << fmt::format("{}", fmt::join(problems, "\n"));
  });
}

}  // namespace
}  // namespace dtbench::testing
