// dtbench-train as a user meets it: --help lists every option with its default, and every
// kind of bad input is one line on stderr with exit code 2.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "catalogue/methods.h"
#include "common/files.h"
#include "fixtures.h"

namespace dtbench {
namespace {

using testing::TempDir;

struct Outcome {
  int code = -1;
  std::string out, err;
};

// Runs dtbench-train with the given shell-safe arguments (and variables: "NAME=VALUE ...").
Outcome run_train(const std::string& args, const std::string& environment = "") {
  TempDir dir;
  std::string command = environment + " " + DTBENCH_TRAIN_BIN + " " + args + " >" + (dir / "out") +
                        " 2>" + (dir / "err");
  int status = std::system(command.c_str());
  auto slurp = [](const std::string& path) {
    std::stringstream s;
    s << std::ifstream(path).rdbuf();
    return s.str();
  };
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

int count_lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST(Cli, HelpListsEveryOptionWithItsDefault) {
  Outcome o = run_train("--help");
  EXPECT_EQ(o.code, 0);
  for (const char* option : {"--dataset", "--data-dir", "--global-batch", "vgg11 256, lenet5 64",
                             "--lr", "vgg11 0.1, lenet5 0.01", "--momentum", "--weight-decay",
                             "--threads", "--no-eval", "--eval-limit", "--eval-batch", "--out"}) {
    EXPECT_NE(o.out.find(option), std::string::npos) << option;
  }
  // CLI11 2.3 (Debian 12) writes a default as "--epochs INT:POSITIVE=1", 2.4 (Debian 13) as
  // "--epochs INT:POSITIVE [1]".
  for (const auto& [option, value] :
       std::vector<std::pair<std::string, std::string>>{{"--model TEXT", "vgg11"},
                                                        {"--epochs INT:POSITIVE", "1"},
                                                        {"--max-iters INT:NONNEGATIVE", "0"},
                                                        {"--seed UINT", "1"},
                                                        {"--log-interval INT:POSITIVE", "20"},
                                                        {"--train-limit INT:NONNEGATIVE", "0"}}) {
    const bool shown = o.out.find(option + "=" + value) != std::string::npos ||
                       o.out.find(option + " [" + value + "]") != std::string::npos;
    EXPECT_TRUE(shown) << option << " with its default " << value;
  }
}

// The strategies and their default modes come from the catalogue of methods, not a hand-written
// list.
TEST(Cli, HelpNamesEveryStrategyAndItsDefaultMode) {
  Outcome o = run_train("--help");
  std::string help = o.out;
  for (size_t at; (at = help.find('\n')) != std::string::npos;) help.replace(at, 1, " ");
  for (auto at = help.find("  "); at != std::string::npos; at = help.find("  ")) help.erase(at, 1);
  for (const auto& spec : sync_methods()) {
    EXPECT_NE(help.find(spec.name), std::string::npos) << spec.name;
    if (spec.modes.front() != SyncMode::blocking && spec.name != "none") {
      std::string default_mode = spec.name + " " + to_string(spec.modes.front());
      EXPECT_NE(help.find(default_mode), std::string::npos) << default_mode;
    }
  }
}

class BadInput : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(BadInput, IsOneLineAndExitCodeTwo) {
  auto [args, expected] = GetParam();
  Outcome o = run_train(args);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
  EXPECT_EQ(o.err.rfind("dtbench-train: error: ", 0), 0u) << o.err;
  EXPECT_NE(o.err.find(expected), std::string::npos) << o.err;
  EXPECT_TRUE(o.out.empty()) << o.out;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadInput,
    ::testing::Values(std::make_pair("--frobnicate", "--frobnicate"),
                      std::make_pair("--global-batch 0", "--global-batch"),
                      std::make_pair("--epochs -1", "--epochs"),
                      std::make_pair("--train-limit -5", "--train-limit"),
                      std::make_pair("--threads many", "--threads"),
                      std::make_pair("--model resnet", "unknown model 'resnet'"),
                      std::make_pair("--model lenet5 --dataset imagenet", "unknown dataset"),
                      std::make_pair("--sync fastest", "unknown sync strategy 'fastest'"),
                      std::make_pair("--mode sideways", "unknown mode 'sideways'"),
                      std::make_pair("--aggregate max", "unknown aggregate 'max'"),
                      std::make_pair("--backend nccl", "unknown backend 'nccl'"),
                      std::make_pair("--malloc tcmalloc", "--malloc"),
                      std::make_pair("--lr nan", "--lr: nan is not a finite number"),
                      std::make_pair("--momentum inf", "--momentum: inf is not a finite number"),
                      std::make_pair("--out /proc/dtbench-none/r.json",
                                     "cannot write /proc/dtbench-none/r.json: "),
                      std::make_pair("--trace /proc/dtbench-none/t.json.gz",
                                     "cannot write /proc/dtbench-none/t.json.gz: "),
                      std::make_pair("--master 10.10.1.1:29500", "--master needs --world-size"),
                      std::make_pair("--world-size 2 --rank 2", "--rank 2 is not within"),
                      std::make_pair("--data-dir /nonexistent-dtbench",
                                     "/nonexistent-dtbench/cifar-10-batches-bin/"
                                     "data_batch_1.bin: file not found")));

TEST(Cli, ABusyRendezvousPortIsOneLineAndExitCodeTwo) {
  TempDir dir;
  testing::write_mnist(dir.path(), 10, 10, false);
  const int taken = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(addr);
  ASSERT_EQ(bind(taken, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(taken, 1), 0);
  ASSERT_EQ(getsockname(taken, reinterpret_cast<sockaddr*>(&addr), &length), 0);
  const int port = ntohs(addr.sin_port);
  Outcome o =
      run_train(fmt::format("--model lenet5 --data-dir {} --backend gloo --master "
                            "127.0.0.1:{} --world-size 1 --rank 0 --timeout-s 20",
                            dir.path(), port));
  close(taken);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find(fmt::format("port {} of --master 127.0.0.1:{} is in use", port, port)),
            std::string::npos)
      << o.err;
}

TEST(Cli, CorruptDatasetIsOneLineAndExitCodeTwo) {
  TempDir dir;
  testing::write_mnist(dir.path(), 10, 10, false);
  testing::write_bytes(dir / "mnist/t10k-images-idx3-ubyte",
                       testing::idx_file(1234, {10, 28, 28}, std::vector<uint8_t>(7840)));
  Outcome o = run_train("--model lenet5 --data-dir " + dir.path());
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find("t10k-images-idx3-ubyte: wrong magic number 1234"), std::string::npos)
      << o.err;
}

TEST(Cli, TrainsAndWritesTheRecord) {
  TempDir dir;
  testing::write_mnist(dir.path(), 64, 20, true);
  std::string out = dir / "runs/r.json";
  Outcome o = run_train("--model lenet5 --data-dir " + dir.path() +
                        " --global-batch 16 --epochs 2 --log-interval 2 --out " + out);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(o.err.empty()) << o.err;
  EXPECT_NE(o.out.find("Epoch 2 [4/4] loss"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Result record: " + out), std::string::npos) << o.out;
  std::ifstream record(out);
  EXPECT_TRUE(record.good());
}

// A loss that turns NaN (here the fault makes rank 0's parameters NaN as iteration 3 begins,
// as a kernel returning garbage would) stops the run at that step: one line, exit code 3.
TEST(Cli, ADivergedLossIsOneLineAndExitCodeThree) {
  TempDir dir;
  testing::write_mnist(dir.path(), 64, 20, true);
  Outcome o = run_train("--model lenet5 --no-eval --global-batch 16 --max-iters 6 --data-dir " +
                        dir.path() + " --fault nan:0 --out " + (dir / "r.json"));
  EXPECT_EQ(o.code, 3) << o.err;
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find("the loss is nan at epoch 1, step 4: the training diverged"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(std::ifstream(dir / "r.json").good());
}

// --malloc is applied and recorded as what took effect, each iteration's page faults beside it
// (the environment's malloc settings winning is allocator_test's). (What the setting is worth is
// measured by the allocator experiments, not asserted here: it depends on the machine.)
TEST(Cli, TheMallocSettingIsAppliedAndRecorded) {
  TempDir dir;
  testing::write_mnist(dir.path(), 64, 20, true);
  auto record_of = [&](const std::string& malloc) {
    std::string out = dir / ("r-" + malloc + ".json");
    Outcome o = run_train("--model lenet5 --no-eval --global-batch 16 --max-iters 3 --data-dir " +
                          dir.path() + " --malloc " + malloc + " --out " + out);
    EXPECT_EQ(o.code, 0) << o.err;
    return nlohmann::json::parse(std::ifstream(out));
  };
  auto keep = record_of("keep");
  EXPECT_EQ(keep["system"]["malloc"], "keep freed memory (mmap and trim thresholds 1 GiB)");
  EXPECT_EQ(keep["ranks"][0]["iteration_minor_faults"].size(), 3u);
  EXPECT_EQ(record_of("glibc")["system"]["malloc"], "glibc default");
}

// The record names the oneDNN kernels the rank's environment chose (docs/testing.md), and they
// are the ones oneDNN runs, as it reports them itself (DNNL_VERBOSE's "isa:" line): held to
// AVX2 by ONEDNN_MAX_CPU_ISA, its own choice without it. On a CPU with AVX-512 the two differ.
TEST(Cli, TheRecordNamesTheOneDnnKernelsThatRan) {
  TempDir dir;
  testing::write_mnist(dir.path(), 64, 20, true);
  struct Run {
    std::string settings, isa;
  };
  auto run = [&](const std::string& name, const std::string& environment) {
    std::string out = dir / ("r-" + name + ".json");
    Outcome o = run_train("--model lenet5 --no-eval --global-batch 16 --max-iters 2 --data-dir " +
                              dir.path() + " --out " + out,
                          "env -u ONEDNN_MAX_CPU_ISA DNNL_VERBOSE=1 " + environment);
    EXPECT_EQ(o.code, 0) << o.err;
    const std::string tag = "info,cpu,isa:";
    auto at = o.out.find(tag);
    EXPECT_NE(at, std::string::npos) << "oneDNN reported no instruction set:\n" << o.out;
    std::string isa = at == std::string::npos ? "" : o.out.substr(at + tag.size());
    return Run{nlohmann::json::parse(std::ifstream(out))["system"]["cpu_kernels"],
               isa.substr(0, isa.find('\n'))};
  };
  const Run own = run("own", "");
  const Run held = run("held", "ONEDNN_MAX_CPU_ISA=AVX2");
  EXPECT_EQ(own.settings, "oneDNN default");
  EXPECT_EQ(held.settings, "environment (ONEDNN_MAX_CPU_ISA=AVX2)");
  EXPECT_EQ(held.isa.find("AVX-512"), std::string::npos) << held.isa;
  if (read_proc_file("/proc/cpuinfo").value_or("").find(" avx512f ") != std::string::npos) {
    EXPECT_NE(own.isa.find("AVX-512"), std::string::npos) << own.isa;
  }
}

}  // namespace
}  // namespace dtbench
