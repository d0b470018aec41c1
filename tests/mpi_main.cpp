// The strategy checks over OpenMPI, ranks as processes: ctest runs this binary under
// mpirun -np 1, 2, 3 and 4. Rank 0 prints gtest's report; other ranks print only failures.
// Every rank's result counts: mpirun exits non-zero if any rank failed.
#include <fmt/core.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include "comm/allgather_text.h"
#include "comm/mpi_communicator.h"
#include "comm/self_communicator.h"
#include "common/allocator.h"
#include "common/error.h"
#include "common/mpi_start.h"
#include "compression_checks.h"
#include "fixtures.h"
#include "record/system_info.h"
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
  if (mode != find_method(name).modes.front()) GTEST_SKIP() << "VGG-11 sizes: default mode only";
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
  config.fault = fmt::format("corrupt:{}", world->size() - 1);
  std::FILE* quiet = std::tmpfile();
  EXPECT_THROW(Trainer(config, load_train_data(config), *world, quiet).run(), RunError);
  std::fclose(quiet);
}

// A nonblocking allreduce started and then left alone by its thread completes: rank 0 makes no
// MPI call until every other rank holds the sum, which they can only get if rank 0's part of the
// collective (4 MiB, past every eager limit: its peers need rank 0 to answer) moved meanwhile.
// The peers say so through files, not MPI. The deadline only keeps a broken build from hanging.
TEST(MpiProgress, AnAllreduceLeftAloneByItsThreadCompletes) {
  const int n = world->size(), rank = world->rank();
  std::unique_ptr<TempDir> own = rank == 0 ? std::make_unique<TempDir>() : nullptr;
  const std::string dir = allgather_text(*world, own ? own->path() : "")[0];
  at::Tensor t = at::full({1 << 20}, static_cast<float>(rank + 1));
  const float sum = n * (n + 1) / 2.0f;
  const auto launched = std::chrono::steady_clock::now();
  auto request = world->iallreduce(t);
  auto done = [&](int r) { return std::filesystem::exists(fmt::format("{}/done-{}", dir, r)); };
  if (rank != 0) {
    request->wait();
    std::ofstream(fmt::format("{}/done-{}", dir, rank)) << "sum received\n";
  } else {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    auto all_done = [&] {
      for (int r = 1; r < n; ++r)
        if (!done(r)) return false;
      return true;
    };
    while (!all_done() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_TRUE(all_done())
        << "the other ranks did not get their sums while rank 0 made no MPI call";
    // Its own part too, seen by the progress thread, which noted when (the trace's span end).
    while (!request->test() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto seen = std::chrono::steady_clock::now();
    ASSERT_TRUE(request->completed_at().has_value());
    EXPECT_GE(*request->completed_at(), launched);
    EXPECT_LE(*request->completed_at(), seen);
    request->wait();  // after a failure above, this lets the others finish
  }
  EXPECT_EQ(t.min().item<float>(), sum) << "rank " << rank;
  EXPECT_EQ(t.max().item<float>(), sum) << "rank " << rank;
  world->barrier();  // rank 0's directory stays until every rank has written its file
}

void expect_no_problems(const std::vector<std::string>& problems) {
  EXPECT_TRUE(problems.empty()) << "rank " << world->rank() << ":\n"
                                << fmt::format("{}", fmt::join(problems, "\n"));
}

TEST_F(MpiTraining, LocalSgdEveryStepAndTopkOfAllTrainAsAllreduce) {
  expect_no_problems(lossy_training_problems(*world, dir_.path()));
}

// The lossy strategies' own checks (compression_checks.h); fp16's float16 sums are dtbench's own
// MPI operation.
TEST(MpiCompression, Fp16IsWithinFloat16Rounding) {
  expect_no_problems(fp16_problems(*world));
}
TEST(MpiCompression, TopkOfAllIsExactAndErrorFeedbackSendsTheRest) {
  expect_no_problems(topk_problems(*world));
}
TEST(MpiCompression, PowerSgdIsExactBeforeItsStartAndOnRankOneGradients) {
  expect_no_problems(powersgd_problems(*world));
}
TEST(MpiCompression, HierarchicalIsExactForEveryHostLayout) {
  expect_no_problems(hierarchical_problems(*world));
}
TEST(MpiCommunicator, SplitsByColor) {
  expect_no_problems(split_problems(*world));
}
TEST(MpiCompression, PayloadPerIterationMatchesEachFormula) {
  expect_no_problems(payload_problems(*world));
}

TEST(MpiCommunicator, CarriesEveryTypeInItsOwnType) {
  auto problems = typed_operation_problems(*world);
  EXPECT_TRUE(problems.empty()) << fmt::format("{}", fmt::join(problems, "\n"));
}

TEST(MpiThreadLevel, LessThanMultipleIsAClearError) {
  for (int level : {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED}) {
    try {
      require_thread_level(level);
      ADD_FAILURE() << "level " << level << " accepted";
    } catch (const CommError& e) {
      EXPECT_NE(std::string(e.what()).find("needs MPI_THREAD_MULTIPLE"), std::string::npos);
    }
  }
  EXPECT_NO_THROW(require_thread_level(MPI_THREAD_MULTIPLE));
  int provided = 0;
  MPI_Query_thread(&provided);
  EXPECT_EQ(provided, MPI_THREAD_MULTIPLE);
}

// The fence after MPI_Init (common/mpi_start.h) lets no rank go on before every rank has reached
// it: each rank stamps the moment it arrives and the moment it leaves (one machine, one clock),
// and every leaving comes after the last arrival. The last rank arrives late on purpose, so that
// a fence that let ranks through would show; no duration is asserted.
TEST(MpiStart, NoRankLeavesTheFenceBeforeEveryRankReachedIt) {
  using Clock = std::chrono::system_clock;
  if (world->rank() == world->size() - 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double arrived = std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
  wait_for_every_rank_started();
  const double left = std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
  std::vector<double> arrivals(world->size());
  double last_arrival = arrived;
  MPI_Allgather(&arrived, 1, MPI_DOUBLE, arrivals.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  for (double a : arrivals) last_arrival = std::max(last_arrival, a);
  EXPECT_GE(left, last_arrival) << "rank " << world->rank() << " left the fence before rank "
                                << world->size() - 1 << " reached it";
}

// The ring for nonblocking allreduces and TCP fragments of 128 KiB are set before MPI starts,
// unless the environment chose, and the record says what the ranks ran with, without the
// launcher's bookkeeping.
TEST(MpiSettings, TheRecordKeepsTheLibraryAndItsParameters) {
  nlohmann::json mpi = describe_system({})["mpi"];
  EXPECT_NE(mpi["library"].get<std::string>(), "");
  const char* algorithm = std::getenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm");
  ASSERT_NE(algorithm, nullptr) << "set before MPI_Init_thread";
  EXPECT_EQ(mpi["mca"]["coll_libnbc_iallreduce_algorithm"], algorithm);
  const char* fragment = std::getenv("OMPI_MCA_btl_tcp_rdma_pipeline_frag_size");
  ASSERT_NE(fragment, nullptr) << "set before MPI_Init_thread";
  EXPECT_EQ(mpi["mca"]["btl_tcp_rdma_pipeline_frag_size"], fragment);
  for (const auto& [name, value] : mpi["mca"].items())
    EXPECT_NE(name.rfind("orte_", 0), 0u) << name << " is the launcher's bookkeeping";
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
  dtbench::keep_freed_memory();  // as dtbench-train runs (tensor_tests_main.cpp)
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
