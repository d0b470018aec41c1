// The strategy checks over OpenMPI, ranks as processes: ctest runs this binary under
// mpirun -np 1, 2, 3 and 4. Rank 0 prints gtest's report; other ranks print only failures.
// Every rank's result counts: mpirun exits non-zero if any rank failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>

#include "comm/mpi_communicator.h"
#include "comm/self_communicator.h"
#include "common/error.h"
#include "fixtures.h"
#include "sync_checks.h"
#include "train/trainer.h"
#include "train_checks.h"

namespace dtbench::testing {
namespace {

Communicator* world = nullptr;

class MpiStrategy : public ::testing::TestWithParam<std::pair<std::string, SyncMode>> {};

TEST_P(MpiStrategy, MeanAndSumOfAwkwardSizes) {
  const auto& [name, mode] = GetParam();
  for (Aggregate aggregate : {Aggregate::mean, Aggregate::sum}) {
    if (!supports(name, "mpi", aggregate)) {
      EXPECT_THROW(strategy_error(*world, name, mode, aggregate, awkward_shapes()), UserError);
      continue;
    }
    double error = strategy_error(*world, name, mode, aggregate, awkward_shapes());
    EXPECT_GE(error, 0) << "rank " << world->rank();
    EXPECT_LE(error, 1e-6) << "rank " << world->rank() << " " << to_string(aggregate);
  }
}

TEST_P(MpiStrategy, MeanOfVgg11Gradients) {
  const auto& [name, mode] = GetParam();
  if (mode != find_sync(name).modes.front()) GTEST_SKIP() << "VGG-11 sizes: default mode only";
  if (!supports(name, "mpi", Aggregate::mean)) GTEST_SKIP() << "needs Gloo";
  double error = strategy_error(*world, name, mode, Aggregate::mean, vgg11_shapes(), 25);
  EXPECT_GE(error, 0);
  EXPECT_LE(error, 1e-6) << "rank " << world->rank();
}

INSTANTIATE_TEST_SUITE_P(All, MpiStrategy, ::testing::ValuesIn(all_strategy_modes()),
                         [](const auto& info) {
                           return info.param.first + "_" + to_string(info.param.second);
                         });

// Every rank writes the same generated data set into a directory of its own.
class MpiTraining : public ::testing::Test {
 protected:
  void SetUp() override { write_mnist(dir_.path(), 320, 40, /*gzip=*/true); }
  TempDir dir_;
};

TEST_F(MpiTraining, EveryStrategyMatchesTheSingleProcessLosses) {
  auto self = make_self_communicator();
  auto single = losses_with(*self, tiny_lenet_config(dir_.path()), "none", "", 6);
  std::vector<double> first;
  for (const auto& name : synchronising_strategies()) {
    if (!supports(name, "mpi", Aggregate::mean)) continue;
    auto losses = losses_with(*world, tiny_lenet_config(dir_.path()), name, "", 6);
    ASSERT_EQ(losses.size(), single.size());
    if (first.empty()) first = losses;
    for (size_t i = 0; i < losses.size(); ++i) {
      EXPECT_NEAR(losses[i], single[i], 1e-3) << name << " iteration " << i;
      EXPECT_NEAR(losses[i], first[i], 1e-4) << name << " iteration " << i;
    }
  }
}

TEST_F(MpiTraining, CorruptedReplicaIsDetected) {
  if (world->size() == 1) GTEST_SKIP() << "one replica cannot disagree with itself";
  TrainConfig config = tiny_lenet_config(dir_.path());
  config.sync = "allreduce";
  config.max_iters = 2;
  config.fault_corrupt_rank = world->size() - 1;
  std::FILE* quiet = std::tmpfile();
  EXPECT_THROW(Trainer(config, load_train_data(config), *world, quiet).run(), RunError);
  std::fclose(quiet);
}

// Prints failed assertions of a rank other than 0, prefixed with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.failed()) {
      std::printf("[rank %d] %s:%d: %s\n", rank_, result.file_name(), result.line_number(),
                  result.summary());
    }
  }

 private:
  int rank_;
};

}  // namespace
}  // namespace dtbench::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  auto comm = dtbench::make_mpi_communicator();
  dtbench::testing::world = comm.get();
  if (comm->rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new dtbench::testing::FailurePrinter(comm->rank()));
  }
  int failed = RUN_ALL_TESTS();
  // Agree on the outcome so that every rank reports a failure anywhere.
  int any = failed;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  comm.reset();
  dtbench::finalize_mpi();
  return any;
}
