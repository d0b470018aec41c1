// bench_collectives as a user runs it: on 1 rank and under mpirun, over MPI and Gloo; its JSON
// is Google Benchmark's, with our counters and context, every result checked (wrong = 0); a
// planted wrong result fails the benchmark and the process.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "fixtures.h"

namespace dtbench {
namespace {

using testing::TempDir;

const char* kFilter =
    "--benchmark_filter='^(allreduce|iallreduce|iallreduce_pair|iallreduce_uneven|ring_allreduce|"
    "gather|scatter|"
    "allgather|reduce_scatter|broadcast|reduce|ring_reduce|gather_scatter|reduce_broadcast|"
    "fp16_hook|topk_hook|powersgd_hook)/backend:[a-z]+/bytes:(16|4096)/'";

// json's destructor unwinds nested values through a std::vector, which may allocate: clang-tidy
// sees an exception escape the implicit destructor; nothing this test can change.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct BenchRun {
  int code = -1;
  nlohmann::json json;
  std::string text;   // the output file as written
  std::string error;  // the JSON parser's complaint (where, and what it read last); empty: none
};

// The output file's text, and its JSON (null where it is not JSON: `error` says why).
void read_output(const std::string& path, BenchRun& r) {
  std::ifstream in(path);
  if (!in.good()) return;
  r.text.assign(std::istreambuf_iterator<char>(in), {});
  try {
    r.json = nlohmann::json::parse(r.text);
  } catch (const nlohmann::json::exception& e) {
    r.error = e.what();
  }
}

// What a test says when the output is not JSON: its size, the parser's complaint and where the
// file ends.
std::string not_json(const BenchRun& r) {
  return fmt::format("the output file is not JSON ({} bytes; {}; ending \"{}\")", r.text.size(),
                     r.error, r.text.substr(r.text.size() > 300 ? r.text.size() - 300 : 0));
}

// Each benchmark that ended in error, with its message: what a failed run's exit code stands for.
std::string errors_in(const BenchRun& r) {
  if (!r.json.is_object()) return not_json(r);
  std::string text;
  for (const auto& b : r.json["benchmarks"]) {
    if (b.value("error_occurred", false)) {
      text += fmt::format("\n{}: {}", b.value("name", ""), b.value("error_message", ""));
    }
  }
  return text;
}

BenchRun run_bench(const std::string& launcher, const std::string& args) {
  TempDir dir;
  std::string out = dir / "out.json";
  std::string command = launcher + " " + DTBENCH_BENCH_COLLECTIVES + " " + args + " " + kFilter +
                        " --benchmark_out=" + out + " --benchmark_out_format=json >" +
                        (dir / "log") + " 2>&1";
  int status = std::system(command.c_str());
  BenchRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  read_output(out, r);
  if (r.code != 0) {
    std::ifstream log(dir / "log");
    std::cerr << log.rdbuf();
  }
  return r;
}

// OpenMPI refuses to start as root without both variables (tests run as root in CI).
std::string mpirun(int ranks) {
  return std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
         DTBENCH_MPIRUN + " -np " + std::to_string(ranks) +
         " --oversubscribe --bind-to none --mca mpi_yield_when_idle 1";
}

// Both binaries run under the trainers' allocator setting, and say so in the context.
void expect_keeps_freed_memory(const nlohmann::json& context) {
  const auto system = nlohmann::json::parse(context.value("dtbench_system", "{}"));
  EXPECT_EQ(system.value("malloc", ""), "keep freed memory (mmap and trim thresholds 1 GiB)");
}

void expect_checked_results(const BenchRun& r, int ranks, const std::string& backend) {
  ASSERT_EQ(r.code, 0);
  ASSERT_TRUE(r.json.is_object()) << not_json(r);
  const auto& context = r.json["context"];
  EXPECT_EQ(context["dtbench_world_size"], std::to_string(ranks));
  EXPECT_EQ(context["dtbench_backend"], backend);
  for (const char* key : {"dtbench_git_commit", "dtbench_hosts", "dtbench_mpi", "dtbench_system"}) {
    EXPECT_TRUE(context.contains(key)) << key;
  }
  expect_keeps_freed_memory(context);
  const auto& benchmarks = r.json["benchmarks"];
  EXPECT_GE(benchmarks.size(), 10u);
  EXPECT_TRUE(std::any_of(benchmarks.begin(), benchmarks.end(), [](const auto& b) {
    return b["name"].template get<std::string>().rfind("iallreduce/", 0) == 0;
  }));  // the nonblocking allreduce, checked like the others below
  // The strategies' composites, the pairs in flight and the lossy methods' buckets at both sizes,
  // each checked like the others below.
  for (const char* op :
       {"gather_scatter/", "reduce_broadcast/", "iallreduce_pair/", "iallreduce_uneven/"}) {
    EXPECT_EQ(std::count_if(benchmarks.begin(), benchmarks.end(),
                            [&](const auto& b) {
                              return b["name"].template get<std::string>().rfind(op, 0) == 0;
                            }),
              2)
        << op;
  }
  for (const char* hook : {"fp16_hook/", "topk_hook/", "powersgd_hook/"}) {
    EXPECT_EQ(std::count_if(benchmarks.begin(), benchmarks.end(),
                            [&](const auto& b) {
                              return b["name"].template get<std::string>().rfind(hook, 0) == 0;
                            }),
              2)
        << hook;  // a lossy method's bucket at both sizes, checked like the others below
  }
  double machine_cpu_s = 0;  // over every operation: the machine did some work
  for (const auto& b : benchmarks) {
    if (b.contains("machines")) {                // every collective's (not osu_allreduce's)
      EXPECT_EQ(b["machines"], 1) << b["name"];  // the ranks all run here
      EXPECT_GE(b["machine_cpu_s"].get<double>(), 0) << b["name"];
      machine_cpu_s += b["machine_cpu_s"].get<double>() * b["iterations"].get<double>();
      EXPECT_GT(b["chained_s"].get<double>(), 0) << b["name"];  // the same operations chained
      EXPECT_EQ(b["rest_s"], 0) << b["name"];                   // no rest unless asked
    }
  }
  EXPECT_GT(machine_cpu_s, 0);
  for (const auto& b : benchmarks) {
    const std::string name = b["name"];
    EXPECT_NE(name.find("/backend:" + backend + "/"), std::string::npos) << name;
    EXPECT_NE(name.find("/ranks:" + std::to_string(ranks)), std::string::npos) << name;
    EXPECT_EQ(b["wrong"], 0) << name;
    EXPECT_EQ(b["ranks"], ranks) << name;
    EXPECT_GT(b["algbw"].get<double>(), 0) << name;
    EXPECT_GE(b["busbw"].get<double>(), 0) << name;
    EXPECT_GT(b["real_time"].get<double>(), 0) << name;
  }
}

TEST(BenchCollectives, OneRankAlone) {
  expect_checked_results(run_bench("", "--backend self"), 1, "self");
}

// Each size's first three operations (the time limit below), every result checked: the 200 of
// a full sweep took 30 s over Gloo on a 2-core VM and check nothing more.
constexpr const char* kThreeEach = " --size-seconds 1e-9";

TEST(BenchCollectives, FourRanksOverMpi) {
  expect_checked_results(run_bench(mpirun(4), std::string("--backend mpi") + kThreeEach), 4, "mpi");
}

TEST(BenchCollectives, TwoRanksOverGloo) {
  expect_checked_results(run_bench(mpirun(2), std::string("--backend gloo") + kThreeEach), 2,
                         "gloo");
}

// LeNet-5's cases are the sizes its methods ask of each collective: its two largest gradients
// (192,000 and 40,320 B), and for allgather, whose method gathers every rank's whole gradient, n
// of each (on 4 ranks 768,000 and 161,280 B), where no straight line between swept sizes holds
// (through a host at 100 Mbit/s Gloo's allgather of 768,000 B took 51.7 ms chained, the line
// between 256 KiB and 1 MiB says 58.3).
TEST(BenchCollectives, LeNetCasesAreTheSizesItsMethodsAsk) {
  TempDir dir;
  const std::string list = dir / "list";
  const std::string command = mpirun(4) + " " + DTBENCH_BENCH_COLLECTIVES +
                              " --backend mpi --benchmark_list_tests " +
                              "--benchmark_filter='/case:lenet5' >" + list + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(list);
  std::set<std::string> cases;
  for (std::string line; std::getline(in, line);) {
    const auto op = line.substr(0, line.find('/'));
    const auto at = line.find("/bytes:");
    if (op == "allgather" || op == "allreduce") {
      cases.insert(op + " " + line.substr(at + 7, line.find('/', at + 1) - at - 7));
    }
  }
  EXPECT_EQ(cases, (std::set<std::string>{"allreduce 40320", "allreduce 192000", "allgather 161280",
                                          "allgather 768000"}));
}

// Sizes 16 and 4096 bytes take 200 operations each; with a time limit every rank has passed
// after its first operation, every size stops at the same one, the third.
TEST(BenchCollectives, ASizeStopsAtItsTimeLimitOnEveryRank) {
  for (const auto& [limit, expected] : {std::pair{"0", 200}, std::pair{"1e-9", 3}}) {
    BenchRun r = run_bench(mpirun(2), std::string("--backend mpi --size-seconds ") + limit);
    ASSERT_EQ(r.code, 0) << limit;
    ASSERT_TRUE(r.json.is_object()) << not_json(r);
    int sizes = 0;
    for (const auto& b : r.json["benchmarks"]) {
      if (!b.contains("machines")) continue;  // osu_allreduce, its own loop
      EXPECT_EQ(b["wrong"], 0) << b["name"];
      EXPECT_EQ(b["operations"], expected) << b["name"] << " " << limit;
      ++sizes;
    }
    EXPECT_GE(sizes, 10) << limit;
  }
}

// With a rest, every operation between barriers waits it out first, on every rank, outside its
// timed region: the run lasts at least the rests, and says how long they were.
TEST(BenchCollectives, EveryOperationFollowsTheRestAskedFor) {
  const auto start = std::chrono::steady_clock::now();
  BenchRun r = run_bench(mpirun(2), "--backend mpi --size-seconds 1e-9 --rest-ms 50");
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.code, 0);
  ASSERT_TRUE(r.json.is_object()) << not_json(r);
  double operations = 0;
  for (const auto& b : r.json["benchmarks"]) {
    if (!b.contains("machines")) continue;  // osu_allreduce, its own loop
    EXPECT_EQ(b["wrong"], 0) << b["name"];
    EXPECT_DOUBLE_EQ(b["rest_s"].get<double>(), 0.05) << b["name"];
    operations += b["operations"].get<double>();
  }
  EXPECT_GE(operations, 30);
  EXPECT_GE(wall_s, operations * 0.05);
}

TEST(BenchCollectives, AWrongResultFailsTheRun) {
  BenchRun r = run_bench(mpirun(2), "--backend mpi --fault wrong");
  EXPECT_NE(r.code, 0);
  ASSERT_TRUE(r.json.is_object()) << not_json(r);
  for (const auto& b : r.json["benchmarks"]) {
    EXPECT_TRUE(b.value("error_occurred", false)) << b["name"];
  }
}

// bench_train on generated MNIST: the model's batch (64), 40 iterations of which 39 are timed.
class BenchTrain : public ::testing::Test {
 protected:
  void SetUp() override { testing::write_mnist(dir_.path(), 64 * 40, 10, /*gzip=*/true); }

  BenchRun run(const std::string& launcher, const std::string& filter, const std::string& data_dir,
               const std::string& options = "") {
    TempDir out_dir;
    std::string out = out_dir / "train.json";
    std::string command = launcher + " " + DTBENCH_BENCH_TRAIN + " --data-dir " + data_dir +
                          " --benchmark_filter='" + filter + "' " + options +
                          " --benchmark_out=" + out + " --benchmark_out_format=json >" +
                          (out_dir / "log") + " 2>" + (out_dir / "err");
    int status = std::system(command.c_str());
    BenchRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    read_output(out, r);
    std::ifstream err(out_dir / "err");
    errors_ = std::string(std::istreambuf_iterator<char>(err), {});
    return r;
  }

  TempDir dir_;
  std::string errors_;
};

class BenchTrainRanks : public BenchTrain, public ::testing::WithParamInterface<int> {};

TEST_P(BenchTrainRanks, TimesThirtyNineIterationsWithTheTrainersFigures) {
  const int ranks = GetParam();
  BenchRun r = run(ranks == 1 ? "" : mpirun(ranks),
                   "^lenet5/sync:(allreduce|bucketed)/mode:(blocking|overlap)/batch:64/"
                   "bucket_mb:25/aggregate:mean/",
                   dir_.path());
  ASSERT_EQ(r.code, 0) << errors_ << errors_in(r);
  ASSERT_TRUE(r.json.is_object()) << not_json(r);
  const auto& benchmarks = r.json["benchmarks"];
  ASSERT_EQ(benchmarks.size(), 4u);  // allreduce and bucketed, each blocking and overlap
  for (const auto& b : benchmarks) {
    EXPECT_EQ(b["iterations"], 39) << b["name"];
    for (const char* counter :
         {"data_s", "forward_s", "backward_s", "sync_s", "optimizer_s", "sync_share",
          "payload_sent_bytes", "payload_received_bytes", "nic_sent_bytes", "nic_received_bytes",
          "cpu_utilisation", "peak_rss_bytes", "final_loss"}) {
      EXPECT_TRUE(b.contains(counter)) << b["name"] << " " << counter;
    }
    // allreduce of LeNet-5's 61,706 floats: 246,824 bytes handed over per rank per iteration.
    EXPECT_EQ(b["payload_sent_bytes"], ranks > 1 ? 246824.0 : 0.0) << b["name"];
    EXPECT_EQ(b["ranks"], ranks);
    // bucketed names its buckets (MiB, launch order), which hold the whole gradient once.
    const bool bucketed = b["name"].get<std::string>().find("/sync:bucketed/") != std::string::npos;
    if (bucketed) {
      EXPECT_GE(b["buckets"], 1.0) << b["name"];
      std::istringstream label(b["label"].get<std::string>());
      std::string words, word;
      label >> words >> word;
      EXPECT_EQ(words + " " + word, "bucket MiB:");
      double mib = 0, total = 0;
      int count = 0;
      while (label >> mib) total += mib, ++count;
      EXPECT_EQ(count, b["buckets"]) << b["label"];
      EXPECT_NEAR(total * 1048576, 246824.0, 0.01 * 1048576 * count) << b["label"];
    } else {
      EXPECT_EQ(b["buckets"], 0.0) << b["name"];
      EXPECT_FALSE(b.contains("label")) << b["name"];
    }
  }
  EXPECT_EQ(r.json["context"]["dtbench_world_size"], std::to_string(ranks));
  expect_keeps_freed_memory(r.json["context"]);
}

INSTANTIATE_TEST_SUITE_P(OneAndFour, BenchTrainRanks, ::testing::Values(1, 4));

// A benchmark whose loss turns NaN ends in error, named; the ones after it still run and the
// output keeps every result, and the run fails.
TEST_F(BenchTrain, ADivergedLossFailsItsBenchmarkAndTheRunGoesOn) {
  BenchRun r = run("",
                   "^lenet5/sync:allreduce/mode:(blocking|overlap)/batch:64/bucket_mb:25/"
                   "aggregate:mean/",
                   dir_.path(), "--fault nan:0");
  EXPECT_NE(r.code, 0) << errors_;
  ASSERT_TRUE(r.json.is_object()) << not_json(r);
  const auto& benchmarks = r.json["benchmarks"];
  ASSERT_EQ(benchmarks.size(), 2u);
  for (const auto& b : benchmarks) {
    EXPECT_TRUE(b.value("error_occurred", false)) << b["name"];
    EXPECT_NE(b.value("error_message", "").find("the training diverged"), std::string::npos) << b;
  }
}

TEST_F(BenchTrain, MissingDataIsOneLineAndExitCodeTwo) {
  TempDir empty;
  BenchRun r = run("", "^vgg11/sync:none/mode:blocking/", empty.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(errors_.begin(), errors_.end(), '\n'), 1) << errors_;
  EXPECT_NE(errors_.find("data_batch_1.bin: file not found"), std::string::npos) << errors_;
  EXPECT_NE(errors_.find("--synthetic"), std::string::npos) << errors_;
}

}  // namespace
}  // namespace dtbench
