// The catalogue of methods (catalogue/methods.h) against the cost model and the collectives
// benchmark: every method has a cost rule, and every operation that prices one is one that
// bench_collectives runs. factories_test.cpp checks it against the strategies' factories.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <set>
#include <string>

#include "catalogue/methods.h"
#include "common/error.h"
#include "fixtures.h"
#include "model/iteration_model.h"

namespace dtbench {
namespace {

TEST(Methods, EveryMethodHasACostRule) {
  for (const auto& m : sync_methods()) EXPECT_TRUE(model::modelled(m.name)) << m.name;
}

TEST(Methods, EveryMethodHasADefaultModeAndADescription) {
  std::set<std::string> names;
  for (const auto& m : sync_methods()) {
    EXPECT_TRUE(names.insert(m.name).second) << "twice: " << m.name;
    EXPECT_FALSE(m.modes.empty()) << m.name;
    EXPECT_FALSE(m.description.empty()) << m.name;
  }
}

TEST(Methods, PerTensorMethodsArePricedByTheirCollectivesAndLossyHooksByTheirSweep) {
  for (const auto& m : sync_methods()) {
    if (m.engine == Engine::per_tensor) {
      EXPECT_FALSE(m.priced_by.empty()) << m.name;
    }
    if (m.engine == Engine::hooked && m.lossy) {
      ASSERT_EQ(m.priced_by.size(), 1u) << m.name;
      EXPECT_EQ(m.priced_by[0].op, m.name + "_hook");
      EXPECT_NE(m.sends, nullptr) << m.name << ": a lossy hook says what it sends";
    }
  }
}

// The options' list: one key each; a sweep prices a run whose fixed options are the defaults,
// whatever its bucket size or start.
TEST(Methods, EachOptionOnceAndTheSweptOnesDecideWhetherASweepApplies) {
  std::set<std::string> keys;
  SyncOptions options;
  each_sync_option(options, [&keys](const OptionSpec& spec, const auto&) {
    EXPECT_TRUE(keys.insert(spec.key).second) << spec.key;
    EXPECT_NE(std::string(spec.help), "") << spec.key;
  });
  SyncOptions other;
  other.bucket_mb = 5;
  other.powersgd_start = 20;
  EXPECT_TRUE(same_swept_options(options, other));
  other.topk_fraction = 0.1;
  EXPECT_FALSE(same_swept_options(options, other));
  other = {};
  other.powersgd_rank = 4;
  EXPECT_FALSE(same_swept_options(options, other));
}

// The names bench_collectives registers, as --benchmark_list_tests prints them ("op/backend:..").
std::set<std::string> benchmarked_ops() {
  testing::TempDir dir;
  const std::string list = dir / "list";
  const std::string command =
      std::string(DTBENCH_BENCH_COLLECTIVES) + " --benchmark_list_tests >" + list + " 2>&1";
  const int status = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
  std::set<std::string> ops;
  std::FILE* in = std::fopen(list.c_str(), "r");
  if (in == nullptr) return ops;
  char line[512];
  while (std::fgets(line, sizeof(line), in) != nullptr) {
    const std::string text(line);
    ops.insert(text.substr(0, text.find('/')));
  }
  std::fclose(in);
  return ops;
}

TEST(Methods, TheOperationsThatPriceAMethodAreBenchmarked) {
  const std::set<std::string> ops = benchmarked_ops();
  ASSERT_FALSE(ops.empty());
  for (const auto& m : sync_methods()) {
    for (const auto& call : m.priced_by)
      EXPECT_EQ(ops.count(call.op), 1u) << m.name << ": " << call.op;
  }
}

TEST(Methods, BucketedEngineAndLossyAreReadFromTheCatalogue) {
  EXPECT_TRUE(bucketed_engine("bucketed"));
  EXPECT_TRUE(bucketed_engine("c10d_ddp"));
  EXPECT_TRUE(bucketed_engine("hierarchical"));
  EXPECT_FALSE(bucketed_engine("allreduce"));
  EXPECT_FALSE(bucketed_engine("local_sgd"));
  EXPECT_FALSE(bucketed_engine("no-such-method"));
  EXPECT_TRUE(is_lossy("topk"));
  EXPECT_FALSE(is_lossy("hierarchical"));
}

TEST(Methods, ARunThatNamesNoMethodStartsInTheModeBothItsDefaultsHave) {
  EXPECT_EQ(default_sync(1), "none");
  EXPECT_EQ(default_sync(4), "allreduce");
  EXPECT_EQ(find_method(default_sync(1)).modes.front(), find_method(default_sync(4)).modes.front());
  EXPECT_EQ(default_mode_of(""), SyncMode::blocking);
  EXPECT_EQ(default_mode_of("bucketed"), SyncMode::overlap);
  EXPECT_EQ(default_mode_of("c10d_ddp"), SyncMode::overlap);
}

TEST(Methods, UnknownNamesAndModesAreOneLineErrors) {
  try {
    find_method("ring");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("unknown sync strategy 'ring' (known: none, ", 0), 0u)
        << e.what();
  }
  try {
    require_mode(find_method("bucketed"), SyncMode::stale);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "sync bucketed has no mode stale (it has: overlap, blocking)");
  }
}

}  // namespace
}  // namespace dtbench
