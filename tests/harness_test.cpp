// The dtbench harness in-process: hosts files, matrix expansion and validation, the command
// line of an experiment, progress/ETA and the child-process runner.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "cluster/cluster.h"
#include "cluster/cluster_ssh.h"
#include "common/error.h"
#include "common/files.h"
#include "common/process.h"
#include "common/software_stack.h"
#include "fixtures.h"
#include "record/cli.h"
#include "record/resource_usage.h"
#include "run/experiment_command.h"
#include "run/hosts_file.h"
#include "run/matrix.h"
#include "run/noise.h"
#include "run/progress.h"
#include "run/runner.h"

namespace dtbench {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

const std::string kSource = DTBENCH_SOURCE_DIR;
const std::string kMatrices = kSource + "/harness/matrices";

using testing::user_error;

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

TEST(HostsFile, TheCommittedFilesParse) {
  HostsFile local = read_hosts_file(kSource + "/hosts/local");
  ASSERT_EQ(local.hosts.size(), 1u);
  EXPECT_EQ(local.hosts[0].name, "localhost");
  EXPECT_EQ(local.total_slots(), 4);
  EXPECT_FALSE(local.emulated);

  HostsFile netns = read_hosts_file(kSource + "/hosts/netns-4");
  EXPECT_TRUE(netns.emulated);
  EXPECT_EQ(netns.netns_prefix, "dtb-");
  EXPECT_EQ(netns.subnet, "10.99.0");
  ASSERT_EQ(netns.hosts.size(), 4u);
  EXPECT_EQ(netns.hosts[3].name, "10.99.0.4");
  EXPECT_EQ(netns.total_slots(), 4);

  HostsFile cloudlab = read_hosts_file(kSource + "/hosts/cloudlab-4.example");
  ASSERT_EQ(cloudlab.hosts.size(), 4u);
  EXPECT_EQ(cloudlab.hosts[0].name, "10.10.1.1");
  EXPECT_EQ(cloudlab.link_rate, "10gbit");
  EXPECT_FALSE(cloudlab.emulated);
}

TEST(HostsFile, OpenMpiSyntaxWithCommentsAndMaxSlots) {
  HostsFile f = parse_hosts_file(
      "# a comment\n\nnode-1 slots=2 max_slots=4   # trailing\n node2.example.org  slots=3\n", "h");
  ASSERT_EQ(f.hosts.size(), 2u);
  EXPECT_EQ(f.hosts[0].name, "node-1");
  EXPECT_EQ(f.hosts[0].slots, 2);
  EXPECT_EQ(f.hosts[1].name, "node2.example.org");
  EXPECT_EQ(f.total_slots(), 5);
}

TEST(HostsFile, MalformedFilesNameTheFileAndLine) {
  EXPECT_EQ(user_error([] { parse_hosts_file("a slots=1\nb\n", "h"); }),
            "hosts file h line 2: host 'b' has no slots=N (dtbench places ranks by slots)");
  EXPECT_THAT(user_error([] { parse_hosts_file("a slots=x\n", "h"); }),
              HasSubstr("h line 1: 'slots=x' needs a positive whole number"));
  EXPECT_THAT(user_error([] { parse_hosts_file("a slots=0\n", "h"); }),
              HasSubstr("positive whole number"));
  EXPECT_THAT(user_error([] { parse_hosts_file("a slots=1 cpus=2\n", "h"); }),
              HasSubstr("line 1: unknown field 'cpus=2'"));
  EXPECT_THAT(user_error([] { parse_hosts_file("a slots=1\na slots=2\n", "h"); }),
              HasSubstr("line 2: host 'a' is listed twice"));
  EXPECT_THAT(user_error([] { parse_hosts_file("a;rm slots=1\n", "h"); }),
              HasSubstr("is not a host name or address"));
  EXPECT_EQ(user_error([] { parse_hosts_file("# nothing\n", "h"); }),
            "hosts file h lists no hosts");
  EXPECT_THAT(user_error([] { parse_hosts_file("#dtbench: fancy\na slots=1\n", "h"); }),
              HasSubstr("unknown dtbench directive"));
  EXPECT_THAT(user_error([] { parse_hosts_file("#dtbench: emulated subnet=10.1\n", "h"); }),
              HasSubstr("bad emulated option 'subnet=10.1'"));
  EXPECT_THAT(user_error([] { parse_hosts_file("#dtbench: links 10gbit\na slots=1\n", "h"); }),
              HasSubstr("bad links directive 'links 10gbit' (links rate=10gbit)"));
  EXPECT_THAT(user_error([] { parse_hosts_file("#dtbench: links rate=fast\na slots=1\n", "h"); }),
              HasSubstr("h line 1: link rate 'fast' is not like 1gbit"));
  EXPECT_EQ(user_error([] { read_hosts_file("/nonexistent/hosts"); }),
            "cannot read hosts file /nonexistent/hosts");
}

TEST(Matrix, TheCommittedMatricesLoadAndFitTheirHosts) {
  HostsFile local = read_hosts_file(kSource + "/hosts/local");
  HostsFile netns = read_hosts_file(kSource + "/hosts/netns-4");
  size_t standard = 0;
  for (const char* name : {"smoke", "quick", "standard", "full"}) {
    SCOPED_TRACE(name);
    Matrix m = load_matrix(name, kMatrices);
    EXPECT_EQ(m.name, name);
    EXPECT_FALSE(m.description.empty());
    check_matrix_fits(m, local);
    check_matrix_fits(m, netns);
    std::set<std::string> groups, dirs;
    for (const auto& e : m.experiments) {
      groups.insert(e.group);
      EXPECT_TRUE(dirs.insert(e.dir()).second) << e.dir();
    }
    // Every question of the report has experiments in every matrix.
    for (const char* g : {"sync_methods", "bucket_sweep", "batch_size", "epochs", "allocator",
                          "bottleneck_compute", "bottleneck_link", "scaling", "collectives"}) {
      EXPECT_EQ(groups.count(g), 1u) << g;
    }
    if (std::string(name) != "smoke") {
      EXPECT_EQ(groups.count("compression"), 1u);
    }
    if (std::string(name) == "standard") standard = m.experiments.size();
    if (std::string(name) == "full") {
      EXPECT_EQ(m.experiments.size(), standard);  // the same experiments, in 3 rounds
      EXPECT_EQ(m.repeat, 3);
    }
  }
  Matrix compression = load_matrix("compression", kMatrices);
  check_matrix_fits(compression, local);
  check_matrix_fits(compression, netns);
  EXPECT_EQ(compression.experiments.size(), 10u);  // five methods, for time and for accuracy
  Matrix hierarchical = load_matrix("hierarchical", kMatrices);
  HostsFile two_by_two = read_hosts_file(kSource + "/hosts/netns-2x2");
  check_matrix_fits(hierarchical, two_by_two);
  check_matrix_fits(hierarchical, local);
  // The model's matrix: blocking runs with traces (the compute profile) and the sweep the link
  // is fitted to, beside the methods it predicts.
  Matrix model = load_matrix("model", kMatrices);
  check_matrix_fits(model, local);
  check_matrix_fits(model, netns);
  bool traced_blocking = false, sweep = false;
  for (const auto& e : model.experiments) {
    traced_blocking = traced_blocking || (e.trace && e.params.value("sync", "") == "allreduce");
    sweep = sweep || e.kind == "collectives";
  }
  EXPECT_TRUE(traced_blocking);
  EXPECT_TRUE(sweep);
}

TEST(Matrix, ExpandsArraysAsACartesianProductMinusExclusions) {
  TempDir dir;
  std::string path = write(dir, "m.json", R"({
    "defaults": {"ranks": 4, "model": "lenet5", "max_iters": 40},
    "entries": [
      {"group": "g", "sync": ["allreduce", "c10d_ddp"], "backend": ["mpi", "gloo"],
       "exclude": [{"sync": "c10d_ddp", "backend": "mpi"}], "estimate_s": 5},
      {"group": "c", "kind": "collectives", "backend": "mpi", "ranks": [2, 4]}
    ]})");
  Matrix m = load_matrix(path, kMatrices);
  ASSERT_EQ(m.experiments.size(), 5u);
  EXPECT_EQ(m.experiments[0].name,
            "g/backend=mpi,max_iters=40,model=lenet5,ranks=4,sync=allreduce");
  EXPECT_EQ(m.experiments[1].name,
            "g/backend=gloo,max_iters=40,model=lenet5,ranks=4,sync=allreduce");
  EXPECT_EQ(m.experiments[2].name,
            "g/backend=gloo,max_iters=40,model=lenet5,ranks=4,sync=c10d_ddp");
  // Defaults apply where they mean something: a collectives experiment has no model.
  EXPECT_EQ(m.experiments[3].name, "c/backend=mpi,ranks=2");
  EXPECT_EQ(m.experiments[4].ranks, 4);
  EXPECT_EQ(m.experiments[4].kind, "collectives");
  EXPECT_DOUBLE_EQ(m.estimate_s(), 3 * 5 + 2 * 60);
}

TEST(Matrix, RepeatCountsRepetitionsAndExtendsReusesEntries) {
  TempDir dir;
  write(dir, "base.json", R"({"entries": [{"group": "g", "model": "lenet5", "seed": 7}]})");
  std::string path = write(dir, "rep.json", R"({"extends": "base", "repeat": 2})");
  Matrix m = load_matrix(path, dir.path());
  // Repetitions are of the same experiment (same seed): the runner runs them in rounds.
  ASSERT_EQ(m.experiments.size(), 1u);
  EXPECT_EQ(m.repeat, 2);
  EXPECT_EQ(m.experiments[0].params["seed"], 7);
  EXPECT_EQ(load_matrix("full", kMatrices).repeat, 3);
  EXPECT_EQ(load_matrix("smoke", kMatrices).repeat, 1);
}

TEST(Runner, RoundsRunEveryExperimentOnceInARotatedOrder) {
  using Plan = std::vector<std::pair<size_t, int>>;
  EXPECT_EQ(round_schedule(3, 1), (Plan{{0, 1}, {1, 1}, {2, 1}}));
  // 4 experiments in 2 rounds: the second round starts half-way round.
  EXPECT_EQ(round_schedule(4, 2),
            (Plan{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {2, 2}, {3, 2}, {0, 2}, {1, 2}}));
  for (size_t n : {1u, 2u, 5u, 7u}) {
    for (int rounds : {1, 2, 3, 4}) {
      Plan plan = round_schedule(n, rounds);
      ASSERT_EQ(plan.size(), n * rounds);
      for (int r = 1; r <= rounds; ++r) {
        std::set<size_t> seen;
        for (size_t k = 0; k < n; ++k) {
          EXPECT_EQ(plan[(r - 1) * n + k].second, r);
          seen.insert(plan[(r - 1) * n + k].first);
        }
        EXPECT_EQ(seen.size(), n) << "round " << r << " of " << rounds << ", n " << n;
      }
    }
  }
}

TEST(Files, AProcFileOfAProcessThatEndedAfterItsOpenIsNoneNotAnError) {
  // A meter samples every process of the machine; a rank that ends between the open of its
  // /proc/PID/stat and the read makes the read fail (ESRCH). That is a process gone, not an
  // error: the run measuring it goes on.
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  ASSERT_GT(child, 0);
  const std::string stat = "/proc/" + std::to_string(child) + "/stat";
  const int fd = open(stat.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(read_rest(fd), std::nullopt);
  close(fd);
  EXPECT_EQ(read_proc_file(stat), std::nullopt);
  const std::optional<std::string> mine = read_proc_file("/proc/self/stat");
  ASSERT_TRUE(mine.has_value());
  EXPECT_THAT(*mine, ::testing::StartsWith(std::to_string(getpid()) + " ("));
}

TEST(Noise, AProcessInTheTreeIsOwnAndAnyOtherIsForeign) {
  // A busy child is the experiment's own CPU to a meter rooted at it, and foreign load to a
  // meter rooted elsewhere. No amount is asserted: only where the time is counted.
  pid_t child = fork();
  if (child == 0) {
    for (volatile unsigned long i = 0;; i = i + 1) {
    }
  }
  ASSERT_GT(child, 0);
  NoiseMeter own(child), other;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  NoiseReading mine, theirs;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    own.sample();
    other.sample();
    mine = own.finish();
    theirs = other.finish();
  } while (mine.own_cpu_s < 0.05 && std::chrono::steady_clock::now() < deadline);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_GE(mine.own_cpu_s, 0.05);
  EXPECT_GE(theirs.foreign_cpu_s, 0.05) << "the busy child is not foreign to the other meter";
  EXPECT_EQ(theirs.own_cpu_s, 0);
  EXPECT_GT(mine.wall_s, 0);
  EXPECT_EQ(mine.cores, theirs.cores);
  NoisePolicy policy;
  NoiseReading busy;
  busy.wall_s = 1;
  busy.cores = 2;
  busy.foreign_cpu_s = 0.05;  // 2.5% of two cores
  EXPECT_TRUE(policy.noisy(busy));
  busy.foreign_cpu_s = 0.03;
  EXPECT_FALSE(policy.noisy(busy));
  busy.steal_s = 0.2;
  EXPECT_TRUE(policy.noisy(busy));
}

TEST(Noise, AProcessCarryingTheMarkerIsOwnWhoeverStartedIt) {
  // Ranks that sshd or slurmstepd started are not in the harness's tree: their environment's
  // marker makes them the experiment's own. A busy process carrying one marker, started by a
  // shell (as a launcher's helper would), outside both meters' trees: own to the meter of that
  // marker, foreign to the meter of another. No amount is asserted, only where it counts.
  NoiseMeter ours(-1, "DTBENCH_EXPERIMENT=/r/a"), theirs(-1, "DTBENCH_EXPERIMENT=/r/b");
  pid_t launcher = fork();
  if (launcher == 0) {
    setpgid(0, 0);  // one group, killed whole below
    execl("/bin/sh", "sh", "-c", "env DTBENCH_EXPERIMENT=/r/a sh -c 'while :; do :; done'; exit 0",
          nullptr);
    _exit(127);
  }
  ASSERT_GT(launcher, 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  NoiseReading mine, other;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ours.sample();
    theirs.sample();
    mine = ours.finish();
    other = theirs.finish();
  } while ((mine.outside_tree_cpu_s < 0.05 || other.foreign_cpu_s < 0.05) &&
           std::chrono::steady_clock::now() < deadline);
  kill(-launcher, SIGKILL);
  waitpid(launcher, nullptr, 0);
  EXPECT_GE(mine.outside_tree_cpu_s, 0.05) << "the marked process is not the experiment's";
  EXPECT_GE(mine.own_cpu_s, mine.outside_tree_cpu_s);
  EXPECT_GE(other.foreign_cpu_s, 0.05) << "another experiment's marker counted as ours";
  EXPECT_EQ(other.own_cpu_s, 0);
}

TEST(Matrix, BadMatricesAreOneLineErrors) {
  TempDir dir;
  auto error_of = [&](const std::string& text) {
    std::string path = write(dir, "bad.json", text);
    return user_error([&] { load_matrix(path, kMatrices); });
  };
  EXPECT_THAT(
      user_error([] { load_matrix("huge", kMatrices); }),
      HasSubstr("unknown matrix 'huge' (known: bucket-best, bucket-plans, cases, compression, "
                "compression-epochs, diagnosis, extrapolation, extrapolation-16, fragments, "
                "full, hierarchical, in-flight, latency-probe, model, overlap, quick, "
                "quick-answer, smoke, "
                "standard, study)"));
  EXPECT_THAT(error_of("{"), HasSubstr("is not valid JSON"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "colour": "red"}]})"),
              HasSubstr("entry 1: unknown key 'colour' for kind train"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "kind": "magic"}]})"),
              HasSubstr("unknown kind 'magic'"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "epochs": "two"}]})"),
              HasSubstr("--epochs: 'two' is not a number"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "epochs": 0}]})"),
              HasSubstr("--epochs: 0 is not > 0"));
  // The harness sets these itself; faults are not for matrices (common/fault_plan.h).
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "out": "x.json"}]})"),
              HasSubstr("unknown key 'out' for kind train"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "fault": "kill:1"}]})"),
              HasSubstr("unknown key 'fault' for kind train"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "kind": "collectives", "model": "x"}]})"),
              HasSubstr("unknown key 'model' for kind collectives"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "sync": "telepathy"}]})"),
              HasSubstr("unknown sync strategy 'telepathy'"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "model": "lenet5", "ranks": 3}]})"),
              HasSubstr("global batch 64 does not divide by 3 ranks"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "sync": "bucketed", "mode": "stale"}]})"),
              HasSubstr("sync bucketed has no mode stale"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "backend": "pigeon"}]})"),
              HasSubstr("unknown backend 'pigeon'"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "sync": []}]})"),
              HasSubstr("'sync' is an empty list"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g"}, {"group": "g"}]})"),
              HasSubstr("appears twice"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "bottleneck_host": 3}]})"),
              HasSubstr("bottleneck_host and bottleneck_rate go together"));
  EXPECT_THAT(error_of(R"({"entries": []})"), HasSubstr("has no experiments"));
  EXPECT_THAT(error_of(R"({"entries": [{"group": "g", "phase": "later"}]})"),
              HasSubstr("unknown phase 'later' (known: calibrate, measure, accuracy, verify)"));
  EXPECT_THAT(
      error_of(R"({"entries": [{"group": "g", "kind": "collectives", "phase": "verify"}]})"),
      HasSubstr("a verify cell is a training run the model can predict"));
  EXPECT_THAT(error_of(R"({"budget_s": 0, "entries": [{"group": "g"}]})"),
              HasSubstr("\"budget_s\" must be a number > 0"));
  EXPECT_THAT(error_of(R"({"until_within": "tight", "entries": [{"group": "g"}]})"),
              HasSubstr("\"until_within\" must be a number > 0"));
}

// A study is a matrix with a budget: its phases, its target interval and its time; a default
// trace is for its training runs only.
TEST(Matrix, AStudyNamesItsPhasesBudgetAndTarget) {
  TempDir dir;
  std::string path = write(dir, "study.json", R"({"until_within": 3, "budget_s": 600,
    "defaults": {"trace": true, "model": "lenet5"},
    "entries": [{"group": "c", "kind": "collectives", "phase": "calibrate"},
                {"group": "g", "sync": "allreduce"},
                {"group": "g", "sync": "bucketed", "phase": "verify"}]})");
  Matrix m = load_matrix(path, dir.path());
  EXPECT_DOUBLE_EQ(m.within, 0.03);
  EXPECT_DOUBLE_EQ(m.budget_s, 600);
  ASSERT_EQ(m.experiments.size(), 3u);
  EXPECT_EQ(m.experiments[0].phase, "calibrate");
  EXPECT_FALSE(m.experiments[0].trace);
  EXPECT_EQ(m.experiments[1].phase, "measure");
  EXPECT_TRUE(m.experiments[1].trace);
  EXPECT_EQ(m.experiments[2].phase, "verify");
  EXPECT_EQ(m.experiments[2].to_json()["phase"], "verify");
  EXPECT_EQ(train_config_of(m.experiments[2]).sync, "bucketed");
  const Matrix study = load_matrix("study", kMatrices);
  EXPECT_GT(study.budget_s, 0);
  EXPECT_GT(study.within, 0);
}

// A training experiment takes dtbench-train's options, read from the trainer: a new trainer
// option is a matrix key without a second list to keep. timeout_s is the trainer's --timeout-s;
// the harness's own limit is time_limit_s.
TEST(Matrix, TrainingKeysAreTheTrainersOptions) {
  for (const char* key : {"model", "sync", "global_batch", "eval", "timeout_s", "malloc"}) {
    EXPECT_NE(std::find(train_option_keys().begin(), train_option_keys().end(), key),
              train_option_keys().end())
        << key;
  }
  TempDir dir;
  std::string path = write(dir, "m.json", R"({"entries": [
      {"group": "g", "model": "lenet5", "eval": true, "timeout_s": 60, "time_limit_s": 30}]})");
  Experiment e = load_matrix(path, kMatrices).experiments.at(0);
  EXPECT_EQ(e.time_limit_s, 30);
  EXPECT_EQ(option_args(e.params),
            (std::vector<std::string>{"--eval", "--model", "lenet5", "--timeout-s", "60"}));
}

TEST(Matrix, MoreRanksThanSlotsIsAnError) {
  Matrix m = load_matrix("smoke", kMatrices);
  HostsFile two = parse_hosts_file("localhost slots=2\n", "two");
  EXPECT_THAT(user_error([&] { check_matrix_fits(m, two); }),
              HasSubstr("asks for 4 ranks but two provides 2 slots"));
}

// Where the command tests put the binaries, agent, data and Python DDP script.
CommandSettings test_settings() {
  CommandSettings s;
  s.bin_dir = "/b";
  s.netns_agent = "/agent";
  s.data_dir = "/data";
  s.python_ddp = "/src/python_ddp.py";
  return s;
}

// ranks_per_host places that many ranks on each host (mpirun's ppr mapping); it must divide
// the ranks, and hosts that cannot place it skip the experiment (with the reason) instead of
// refusing the matrix.
TEST(Matrix, RanksPerHostMapsRanksAndSkipsWhereTooFewHosts) {
  TempDir dir;
  std::string path = write(dir, "m.json", R"({"entries": [
      {"group": "g", "kind": "collectives", "ranks": 2, "ranks_per_host": 1}]})");
  Matrix m = load_matrix(path, kMatrices);
  const Experiment& e = m.experiments.at(0);
  EXPECT_EQ(e.ranks_per_host, 1);
  EXPECT_THAT(e.name, HasSubstr("ranks_per_host=1"));
  EXPECT_EQ(e.to_json()["ranks_per_host"], 1);
  HostsFile one = parse_hosts_file("localhost slots=4\n", "one");
  HostsFile two = read_hosts_file(kSource + "/hosts/netns-2x2");
  check_matrix_fits(m, one);  // fits: skipped when run
  EXPECT_EQ(e.unplaceable_on(one), "2 ranks, 1 per host, need 2 hosts of 1 slots; one has 1");
  EXPECT_EQ(e.unplaceable_on(two), "");
  const std::string line =
      fmt::format("{}", fmt::join(experiment_argv(e, two, test_settings(), "/o/r.json"), " "));
  EXPECT_THAT(line, HasSubstr("-np 2 --hostfile " + two.path +
                              " --bind-to none --mca mpi_yield_when_idle 1"));
  EXPECT_THAT(line, HasSubstr(" --map-by ppr:1:node "));
  // Without it, mpirun fills the slots in order.
  Experiment filled = e;
  filled.ranks_per_host = 0;
  EXPECT_THAT(
      fmt::format("{}", fmt::join(experiment_argv(filled, two, test_settings(), "/o"), " ")),
      Not(HasSubstr("--map-by")));
  EXPECT_EQ(filled.unplaceable_on(one), "");

  std::string bad = write(dir, "bad.json", R"({"entries": [
      {"group": "g", "kind": "collectives", "ranks": 4, "ranks_per_host": 3}]})");
  EXPECT_THAT(user_error([&] { load_matrix(bad, kMatrices); }),
              HasSubstr("\"ranks_per_host\" must be a whole number >= 1 that divides \"ranks\""));
}

TEST(ExperimentCommand, TraceWritesTraceJsonBesideTheResult) {
  TempDir dir;
  std::string path = write(dir, "m.json", R"({"entries": [
      {"group": "g", "model": "lenet5", "ranks": 2, "sync": "bucketed", "trace": true}]})");
  Experiment e = load_matrix(path, kMatrices).experiments.at(0);
  EXPECT_THAT(e.name, HasSubstr("trace=true"));
  CommandSettings s = test_settings();
  HostsFile local = parse_hosts_file("localhost slots=4\n", "/h");
  auto argv = experiment_argv(e, local, s, "/out/rep-1/result.json.partial");
  auto at = std::find(argv.begin(), argv.end(), "--trace");
  ASSERT_NE(at, argv.end());
  EXPECT_EQ(*(at + 1), "/out/rep-1/trace.json.gz");
  // The path is the harness's to choose; trace is a yes or no.
  std::string bad = write(dir, "bad.json", R"({"entries": [
      {"group": "g", "model": "lenet5", "trace": "/tmp/t.json"}]})");
  EXPECT_THAT(user_error([&] { load_matrix(bad, kMatrices); }),
              HasSubstr("\"trace\" is true or false"));
}

// A sweep's rest goes to bench_collectives as milliseconds; it names the experiment apart from
// the same sweep without one.
TEST(ExperimentCommand, ASweepsRestGoesToBenchCollectives) {
  TempDir dir;
  std::string path = write(dir, "m.json", R"({"entries": [
      {"group": "c", "kind": "collectives", "backend": "mpi", "ranks": 2, "rest_ms": [0, 3]}]})");
  const Matrix m = load_matrix(path, kMatrices);
  ASSERT_EQ(m.experiments.size(), 2u);
  EXPECT_NE(m.experiments[0].name, m.experiments[1].name);
  HostsFile local = parse_hosts_file("localhost slots=4\n", "/h");
  auto argv = experiment_argv(m.experiments[1], local, test_settings(), "/out/result.json");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--rest-ms=3"), argv.end());
  std::string bad = write(dir, "bad.json", R"({"entries": [
      {"group": "c", "kind": "collectives", "rest_ms": -1}]})");
  EXPECT_THAT(user_error([&] { load_matrix(bad, kMatrices); }),
              HasSubstr("rest_ms must be a number >= 0"));
}

// A sweep's time per size goes to bench_collectives as its --size-seconds; zero is refused
// (bench_collectives reads it as no limit).
TEST(ExperimentCommand, ASweepsTimePerSizeGoesToBenchCollectives) {
  TempDir dir;
  std::string path = write(dir, "m.json", R"({"entries": [
      {"group": "c", "kind": "collectives", "backend": "gloo", "ranks": 2, "size_seconds": 0.25}]})");
  const Matrix m = load_matrix(path, kMatrices);
  ASSERT_EQ(m.experiments.size(), 1u);
  HostsFile local = parse_hosts_file("localhost slots=4\n", "/h");
  auto argv = experiment_argv(m.experiments[0], local, test_settings(), "/out/result.json");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--size-seconds=0.25"), argv.end());
  std::string bad = write(dir, "bad.json", R"({"entries": [
      {"group": "c", "kind": "collectives", "size_seconds": 0}]})");
  EXPECT_THAT(user_error([&] { load_matrix(bad, kMatrices); }),
              HasSubstr("size_seconds must be a number > 0"));
}

// An experiment's TCP fragment reaches its ranks through either launcher, as the variable
// the ranks leave alone when set; it names the experiment, and a fragment under 1 KiB or a
// fraction is refused before anything runs.
TEST(ExperimentCommand, AnExperimentsMpiFragmentReachesItsRanks) {
  TempDir dir;
  std::string path = write(dir, "m.json", R"({"entries": [
      {"group": "c", "kind": "collectives", "backend": "mpi", "ranks": 2,
       "mpi_fragment": [0, 8192]}]})");
  const Matrix m = load_matrix(path, kMatrices);
  ASSERT_EQ(m.experiments.size(), 2u);
  EXPECT_THAT(m.experiments[0].name, Not(HasSubstr("mpi_fragment")));
  EXPECT_THAT(m.experiments[1].name, HasSubstr("mpi_fragment=8192"));
  EXPECT_EQ(m.experiments[1].to_json()["mpi_fragment"], 8192);
  const HostsFile hosts = parse_hosts_file("a slots=1\nb slots=1\n", "/h");
  CommandSettings s = test_settings();
  const std::string variable = std::string(kMpiFragmentVariable) + "=8192";
  const auto argv = experiment_argv(m.experiments[1], hosts, s, "/out/result.json");
  const auto at = std::find(argv.begin(), argv.end(), variable);
  ASSERT_NE(at, argv.end());
  EXPECT_EQ(*(at - 1), "-x");
  EXPECT_THAT(experiment_argv(m.experiments[0], hosts, s, "/out/result.json"),
              Not(Contains(HasSubstr(kMpiFragmentVariable))));
  s.launcher = "srun";
  const auto vars = experiment_variables(m.experiments[1], "/out/result.json");
  EXPECT_EQ(launch_env(hosts, s, vars).at(kMpiFragmentVariable), "8192");
  EXPECT_EQ(vars.at("DTBENCH_EXPERIMENT"),
            experiment_marker("/out/result.json").at("DTBENCH_EXPERIMENT"));
  for (const char* value : {"512", "8192.5", "\"8k\""}) {
    std::string bad = write(dir, "bad.json",
                            fmt::format(R"({{"entries": [{{"group": "c", "kind": "collectives",
                                        "mpi_fragment": {}}}]}})",
                                        value));
    EXPECT_THAT(user_error([&] { load_matrix(bad, kMatrices); }), HasSubstr("mpi_fragment"))
        << value;
  }
}

TEST(ExperimentCommand, LocalAndEmulatedLaunches) {
  TempDir dir;
  std::string path = write(dir, "m.json", R"({"entries": [
      {"group": "g", "model": "lenet5", "eval": false, "ranks": 2, "bucket_mb": 0.5,
       "sync": "bucketed"}]})");
  Experiment e = load_matrix(path, kMatrices).experiments.at(0);
  CommandSettings s = test_settings();
  // Without a user's oneDNN kernels, which the ranks would get too (ctest sets them on libtorch 2).
  testing::ScopedEnvironment kernels({"ONEDNN_MAX_CPU_ISA"}, {});
  HostsFile local = parse_hosts_file("localhost slots=4\n", "/h");
  auto argv = experiment_argv(e, local, s, "/out/result.json");
  // Built against OpenMPI 5, one machine's launch also excludes TCP ("--mca btl ^tcp").
  if (auto tcp = std::find(argv.begin(), argv.end(), "^tcp"); tcp != argv.end()) {
    argv.erase(tcp - 2, tcp + 1);
  }
  const std::string marker = experiment_marker("/out/result.json").at("DTBENCH_EXPERIMENT");
  EXPECT_EQ(marker.find_first_of(", "), std::string::npos);  // one word, even to srun's --export
  std::vector<std::string> expected = {"mpirun",
                                       "-np",
                                       "2",
                                       "--hostfile",
                                       "/h",
                                       "--bind-to",
                                       "none",
                                       "--mca",
                                       "mpi_yield_when_idle",
                                       "1",
                                       "-x",
                                       "DTBENCH_EXPERIMENT=" + marker,
                                       "/b/dtbench-train",
                                       "--data-dir",
                                       "/data",
                                       "--out",
                                       "/out/result.json",
                                       "--bucket-mb",
                                       "0.5",
                                       "--no-eval",
                                       "--model",
                                       "lenet5",
                                       "--sync",
                                       "bucketed"};
  EXPECT_EQ(argv, expected);

  HostsFile netns = read_hosts_file(kSource + "/hosts/netns-4");
  argv = experiment_argv(e, netns, s, "/out/result.json");
  std::string line = fmt::format("{}", fmt::join(argv, " "));
  EXPECT_THAT(line, HasSubstr("--mca plm_rsh_agent /agent"));
  EXPECT_THAT(line, HasSubstr("--mca btl_tcp_if_include 10.99.0.0/24"));
  EXPECT_THAT(line, HasSubstr("-x GLOO_SOCKET_IFNAME=eth0"));
  // The ranks share the cores out themselves (thread_share.h), whatever the launcher.
  EXPECT_THAT(line, Not(HasSubstr("--threads")));
}

TEST(ExperimentCommand, PythonDdpGetsTheSameHostsRanksAndData) {
  TempDir dir;
  std::string path = write(dir, "m.json", R"({"entries": [
      {"group": "g", "kind": "python_ddp", "model": "lenet5", "ranks": 2, "malloc": "keep"}]})");
  Experiment e = load_matrix(path, kMatrices).experiments.at(0);
  CommandSettings s = test_settings();
  HostsFile local = parse_hosts_file("localhost slots=4\n", "/h");
  std::string line =
      fmt::format("{}", fmt::join(experiment_argv(e, local, s, "/out/r.json", 4321), " "));
  EXPECT_THAT(line, HasSubstr("mpirun -np 2 --hostfile /h "));
  EXPECT_THAT(line, HasSubstr("/usr/bin/env MALLOC_MMAP_THRESHOLD_=1073741824 "
                              "MALLOC_TRIM_THRESHOLD_=1073741824 /usr/bin/python3 "
                              "/src/python_ddp.py --data-dir /data --out /out/r.json "
                              "--master 127.0.0.1:4321 --model lenet5"));
  EXPECT_THAT(line, Not(HasSubstr("--malloc")));
  HostsFile netns = read_hosts_file(kSource + "/hosts/netns-4");
  line = fmt::format("{}", fmt::join(experiment_argv(e, netns, s, "/out/r.json", 4321), " "));
  EXPECT_THAT(line, HasSubstr("--master 10.99.0.1:4321"));
  EXPECT_THAT(line, HasSubstr("-x DTBENCH_EXPERIMENT="));  // the noise guard's marker
}

TEST(Cluster, RatesParseInTcUnits) {
  EXPECT_DOUBLE_EQ(parse_rate("1gbit"), 1e9);
  EXPECT_DOUBLE_EQ(parse_rate("100mbit"), 1e8);
  EXPECT_DOUBLE_EQ(parse_rate("2.5mbit"), 2.5e6);
  EXPECT_DOUBLE_EQ(parse_rate("800kbit"), 8e5);
  EXPECT_THAT(user_error([] { parse_rate("fast"); }), HasSubstr("'fast' is not like 1gbit"));
  EXPECT_THAT(user_error([] { parse_rate("0mbit"); }), HasSubstr("is not like"));
  ClusterSpec spec;
  std::string hosts = cluster_hosts_file(spec);
  HostsFile parsed = parse_hosts_file(hosts, "generated");
  EXPECT_TRUE(parsed.emulated);
  EXPECT_EQ(parsed.total_slots(), 4);
  // The committed hosts/netns-4 is exactly what `dtbench cluster up` describes.
  std::ifstream committed(kSource + "/hosts/netns-4");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(committed), {}), hosts);
  EXPECT_FALSE(parsed.ssh);
}

TEST(Cluster, OverSshTheHostsAreTheNodesNamesAndMpirunUsesStockSshInSlurmSrun) {
  const ClusterSpec spec;
  const std::string hosts = cluster_hosts_file(spec, /*ssh=*/true);
  EXPECT_EQ(read_text_file(kSource + "/hosts/netns-4-ssh"), hosts);
  const HostsFile parsed = parse_hosts_file(hosts, "generated");
  EXPECT_TRUE(parsed.emulated);
  EXPECT_TRUE(parsed.ssh);
  ASSERT_EQ(parsed.hosts.size(), 4u);
  EXPECT_EQ(parsed.hosts[2].name, "dtb-n2");
  CommandSettings settings;
  settings.netns_agent = "/x/netns-agent";
  const std::vector<std::string> over_ssh = launch_argv(4, parsed, settings, 0);
  EXPECT_THAT(over_ssh, Not(Contains("plm_rsh_agent")));
  EXPECT_THAT(over_ssh, Contains("-F " + ssh_client_config("dtb-")));
  EXPECT_THAT(over_ssh, Contains("btl_tcp_if_include"));
  const std::vector<std::string> by_agent =
      launch_argv(4, parse_hosts_file(cluster_hosts_file(spec), "agent"), settings, 0);
  EXPECT_THAT(by_agent, Contains("/x/netns-agent"));
  settings.launcher = "srun";  // inside an allocation: the file's first hosts that hold the ranks
  const HostsFile allocation = parse_hosts_file("a slots=1\nb slots=1\nc slots=1\n", "alloc");
  EXPECT_EQ(launch_argv(2, allocation, settings, 0),
            (std::vector<std::string>{"srun", "--mpi=pmix", "--ntasks=2", "--nodes=2",
                                      "--nodelist=a,b", "--distribution=block",
                                      "--kill-on-bad-exit=1", "--overlap", "--export=ALL"}));
  EXPECT_THAT(launch_argv(3, allocation, settings, 1), Contains("--ntasks-per-node=1"));
  // srun passes its environment on: the settings mpirun gives as --mca and -x are there, with
  // the experiment's marker (the noise guard's).
  const auto marker = experiment_marker("/r/result.json");
  const auto env = launch_env(allocation, settings, marker);
  EXPECT_EQ(env.at("OMPI_MCA_mpi_yield_when_idle"), "1");
  EXPECT_EQ(env.at("DTBENCH_EXPERIMENT"), marker.at("DTBENCH_EXPERIMENT"));
  settings.launcher = "mpirun";
  EXPECT_EQ(launch_env(allocation, settings, marker).count("DTBENCH_EXPERIMENT"), 0);
  {  // Gloo's interface, set by the user for a cluster of several networks: every rank's
    testing::ScopedEnvironment gloo({"GLOO_SOCKET_IFNAME"}, {{"GLOO_SOCKET_IFNAME", "eth1"}});
    EXPECT_THAT(launch_argv(3, allocation, settings, 0, marker),
                Contains("GLOO_SOCKET_IFNAME=eth1"));
    settings.launcher = "srun";
    EXPECT_EQ(launch_env(allocation, settings, marker).at("GLOO_SOCKET_IFNAME"), "eth1");
    settings.launcher = "mpirun";
    // The emulated cluster's namespaces have eth0 only.
    EXPECT_THAT(launch_argv(4, parse_hosts_file(cluster_hosts_file(spec), "agent"), settings, 0),
                Contains("GLOO_SOCKET_IFNAME=eth0"));
  }
  EXPECT_THAT(launch_argv(3, allocation, settings, 0, marker),
              Not(Contains(HasSubstr("GLOO_SOCKET_IFNAME"))));
  {  // oneDNN's kernels, held by the user (docs/testing.md): every rank's, whatever the launcher.
    testing::ScopedEnvironment isa({"ONEDNN_MAX_CPU_ISA"}, {{"ONEDNN_MAX_CPU_ISA", "AVX2"}});
    EXPECT_THAT(launch_argv(3, allocation, settings, 0, marker),
                Contains("ONEDNN_MAX_CPU_ISA=AVX2"));
    settings.launcher = "srun";
    EXPECT_EQ(launch_env(allocation, settings, marker).at("ONEDNN_MAX_CPU_ISA"), "AVX2");
    settings.launcher = "mpirun";
  }
  {
    testing::ScopedEnvironment isa({"ONEDNN_MAX_CPU_ISA"}, {});
    EXPECT_THAT(launch_argv(3, allocation, settings, 0, marker),
                Not(Contains(HasSubstr("ONEDNN_MAX_CPU_ISA"))));
  }
  {  // MPI's interfaces, chosen by the user: on mpirun's command line, and srun's ranks' variables.
    testing::ScopedEnvironment mpi({"OMPI_MCA_btl_tcp_if_include"},
                                   {{"OMPI_MCA_btl_tcp_if_include", "10.1.0.0/16"}});
    const auto argv = launch_argv(3, allocation, settings, 0, marker);
    const auto at = std::find(argv.begin(), argv.end(), "btl_tcp_if_include");
    ASSERT_NE(at, argv.end());
    EXPECT_EQ(*(at - 1), "--mca");
    EXPECT_EQ(*(at + 1), "10.1.0.0/16");
    settings.launcher = "srun";
    EXPECT_EQ(launch_env(allocation, settings, marker).at("OMPI_MCA_btl_tcp_if_include"),
              "10.1.0.0/16");
    settings.launcher = "mpirun";
    // The emulated cluster keeps its own subnet.
    EXPECT_THAT(launch_argv(4, parse_hosts_file(cluster_hosts_file(spec), "agent"), settings, 0),
                Not(Contains("10.1.0.0/16")));
  }
  EXPECT_THAT(
      user_error([] { parse_hosts_file("#dtbench: emulated launch=rsh\nh slots=1\n", "h"); }),
      HasSubstr("bad emulated option 'launch=rsh'"));
}

TEST(Progress, EtaScalesTheEstimatesByWhatWasMeasured) {
  std::FILE* sink = std::tmpfile();
  Progress p({10, 10, 20}, sink);
  EXPECT_DOUBLE_EQ(p.eta_s(0), 40);
  p.start(0, "a");
  EXPECT_DOUBLE_EQ(p.eta_s(4), 36);
  p.finish("ok", 20, true);  // twice the estimate: the rest should take twice as long
  EXPECT_DOUBLE_EQ(p.eta_s(0), 60);
  p.start(1, "b");
  p.finish("done", 0, false);  // finished earlier: not a measurement
  EXPECT_DOUBLE_EQ(p.eta_s(0), 40);
  std::rewind(sink);
  char line[256] = {};
  ASSERT_NE(std::fgets(line, sizeof(line), sink), nullptr);
  EXPECT_THAT(std::string(line), HasSubstr("[1/3] ok      a 20.0s | elapsed"));
  std::fclose(sink);
  EXPECT_EQ(format_duration(42.25), "42.2s");
  EXPECT_EQ(format_duration(250), "4m10s");
  EXPECT_EQ(format_duration(3725), "1h02m");
}

TEST(Process, ExitCodesOutputAndMissingPrograms) {
  std::string out;
  EXPECT_EQ(run_captured({"sh", "-c", "echo hello; echo oops >&2; exit 7"}, &out), 7);
  EXPECT_EQ(out, "hello\noops\n");
  EXPECT_EQ(run_captured({"sh", "-c", "kill -TERM $$"}, nullptr), 128 + 15);
  EXPECT_THAT(user_error([] { run_captured({"/nonexistent/program"}, nullptr); }),
              HasSubstr("cannot run /nonexistent/program: No such file"));
}

TEST(Process, ATimeoutEndsTheWholeProcessGroup) {
  TempDir dir;
  ProcessSpec spec;
  // The child's own child would keep running if only the direct child were killed.
  spec.argv = {"sh", "-c", "sleep 60 & echo $! > " + (dir / "pid") + "; wait"};
  spec.timeout_s = 1;
  auto began = std::chrono::steady_clock::now();
  ProcessOutcome outcome = run_process(spec);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  EXPECT_TRUE(outcome.timed_out);
  EXPECT_FALSE(outcome.interrupted);
  EXPECT_NE(outcome.exit_code, 0);
  EXPECT_LT(took, 30);  // far below the 60 s the grandchild would sleep
  int pid = 0;
  std::ifstream(dir / "pid") >> pid;
  ASSERT_GT(pid, 0);
  // Gone, or a zombie waiting for whoever reaps orphans here.
  auto alive = [pid] {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_text, name, state;
    return static_cast<bool>(stat >> pid_text >> name >> state) && state != "Z";
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (alive() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(alive()) << "the grandchild outlived the timeout";
}

TEST(Process, TheCpuOfWhatTheChildLeftBehindIsCounted) {
  // The child starts a grandchild that uses 0.2 s of CPU and exits at once, as mpirun may end
  // before the launch agents of its ranks. The orphan comes back to the runner, which reaps it
  // before it returns, so the tree's CPU is all in RUSAGE_CHILDREN.
  const double before = children_cpu_s();
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "perl -e '1 while (times)[0] + (times)[1] < 0.2' & exit 0"};
  EXPECT_EQ(run_process(spec).exit_code, 0);
  EXPECT_GE(children_cpu_s() - before, 0.15);
}

}  // namespace
}  // namespace dtbench
