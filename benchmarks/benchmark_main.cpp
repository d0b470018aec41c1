#include "benchmark_main.h"

#include <ATen/ATen.h>
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstring>

#include "comm/mpi_communicator.h"
#include "common/allocator.h"
#include "common/cli_numbers.h"
#include "common/error.h"
#include "common/fault_plan.h"
#include "common/git_commit.h"
#include "common/main_guard.h"
#include "common/mpi_check.h"
#include "record/system_info.h"

namespace dtbench::bench {
namespace {

// Reports nothing: what ranks other than 0 give Google Benchmark.
class NullReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

// Whether a run ended in SkipWithError: Google Benchmark 1.7 (Debian 12) says so in
// error_occurred, 1.8 and later (Debian 13's 1.9) in skipped. The overload for the other
// version's field drops out.
template <typename Run>
auto ended_in_error(const Run& run, int) -> decltype(bool(run.error_occurred)) {
  return run.error_occurred;
}
template <typename Run>
auto ended_in_error(const Run& run, long) -> decltype(bool(run.skipped)) {
  using Skipped = decltype(run.skipped);
  return run.skipped == Skipped::SkippedWithError;
}

// Counts benchmarks that ended in SkipWithError, then hands the runs on.
class ErrorCounter : public benchmark::BenchmarkReporter {
 public:
  explicit ErrorCounter(benchmark::BenchmarkReporter* next) : next_(next) {}
  bool ReportContext(const Context& c) override { return next_->ReportContext(c); }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) errors_ += ended_in_error(run, 0) ? 1 : 0;
    next_->ReportRuns(runs);
  }
  void Finalize() override { next_->Finalize(); }
  int errors() const { return errors_; }

 private:
  benchmark::BenchmarkReporter* next_;
  int errors_ = 0;
};

bool is_benchmark_flag(const char* arg) {
  return std::strncmp(arg, "--benchmark_", 12) == 0;
}

}  // namespace

Options parse_options(int* argc, char** argv, const char* program) {
  // Google Benchmark's flags stay in argv for benchmark::Initialize; CLI11 sees the rest.
  std::vector<std::string> ours = {program};
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    if (is_benchmark_flag(argv[i])) {
      argv[kept++] = argv[i];
    } else {
      ours.push_back(argv[i]);
    }
  }
  *argc = kept;
  Options o;
  CLI::App app(fmt::format("{}: a dtbench benchmark (Google Benchmark's --benchmark_* flags "
                           "apply too)",
                           program),
               program);
  app.add_option("--backend", o.launch.backend, "auto (mpi under mpirun) | mpi | gloo | self")
      ->capture_default_str();
  app.add_option("--master", o.launch.master, "gloo without mpirun: rank 0's HOST:PORT");
  app.add_option("--world-size", o.launch.world_size, "gloo without mpirun: number of ranks");
  app.add_option("--rank", o.launch.rank, "gloo without mpirun: this rank");
  app.add_option("--timeout-s", o.launch.timeout_s, "Give up when a peer is silent this long")
      ->capture_default_str();
  app.add_option("--hosts", o.hosts, "The hosts file used (recorded in the context)");
  app.add_option("--data-dir", o.data_dir, "Datasets (bench_train)");
  app.add_option(
         "--threads", o.threads,
         "bench_train: intra-op threads per rank (0: its cpuset's cores over the ranks that share "
         "them)")
      ->check(non_negative());
  app.add_option("--trace", o.trace_dir,
                 "bench_train: write each benchmark's Chrome trace here, as <name>.json");
  app.add_option("--size-seconds", o.size_seconds,
                 "bench_collectives: a size's operations stop once they took this long on the "
                 "slowest rank (after 3 at least; 0: no limit)")
      ->capture_default_str()
      ->check(non_negative());
  double rest_ms = 0;
  app.add_option("--rest-ms", rest_ms,
                 "bench_collectives: every rank idles this long between the barrier and each "
                 "operation, as a training step's first call finds the links after its compute "
                 "(0: none; the chained time is unchanged)")
      ->capture_default_str()
      ->check(non_negative());
  app.add_flag("--synthetic", o.synthetic,
               "bench_train: CIFAR-shaped random data instead of DATA_DIR (recorded)");
  std::string fault;
  app.add_option("--fault", fault, "Test only: a fault (common/fault_plan.h)")->group("");
  std::vector<const char*> args;
  args.reserve(ours.size());
  for (const auto& a : ours) args.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}\n", app.help());
    benchmark::PrintDefaultHelp();
    std::exit(0);
  } catch (const CLI::ParseError& e) {
    throw UserError(e.what());
  }
  o.faults = FaultPlan::parse(fault);
  o.rest_s = rest_ms / 1000;
  return o;
}

World join(const Options& options) {
  World w;
  w.comm = connect(options.launch);
  w.control = w.comm->duplicate();
  return w;
}

double max_over_ranks(Communicator& control, double seconds) {
  std::vector<double> slowest = {seconds};
  dtbench::max_over_ranks(control, slowest);
  return std::max(slowest[0], seconds);  // never below this rank's own, after float rounding
}

double sum_over_ranks(Communicator& control, double value) {
  if (control.size() == 1) return value;
  at::Tensor t = at::full({1}, static_cast<float>(value), at::kFloat);
  control.allreduce(t);
  return t.item<float>();
}

int run_benchmarks(int* argc, char** argv, const Options& options, World& world) {
  const bool reporting = world.comm->rank() == 0;
  if (!reporting) {
    int kept = 1;
    for (int i = 1; i < *argc; ++i) {
      if (std::strncmp(argv[i], "--benchmark_out", 15) != 0) argv[kept++] = argv[i];
    }
    *argc = kept;
  }
  benchmark::Initialize(argc, argv);
  if (benchmark::ReportUnrecognizedArguments(*argc, argv)) {
    throw UserError(fmt::format("unknown argument '{}'", argv[1]));
  }
  benchmark::AddCustomContext("dtbench_git_commit", git_commit());
  benchmark::AddCustomContext("dtbench_world_size", std::to_string(world.comm->size()));
  benchmark::AddCustomContext("dtbench_backend", world.comm->backend());
  benchmark::AddCustomContext("dtbench_hosts", options.hosts.empty() ? "localhost" : options.hosts);
  int major = 0, minor = 0;
  DTB_MPI_CHECK(MPI_Get_version(&major, &minor));
  char mpi_library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  DTB_MPI_CHECK(MPI_Get_library_version(mpi_library, &length));
  std::string mpi(mpi_library);
  benchmark::AddCustomContext("dtbench_mpi", mpi.substr(0, mpi.find_first_of(",\n")));
  benchmark::AddCustomContext("dtbench_system", describe_system({}).dump());

  int errors = 0;
  if (reporting) {
    std::unique_ptr<benchmark::BenchmarkReporter> display(
        benchmark::CreateDefaultDisplayReporter());
    ErrorCounter counter(display.get());
    benchmark::RunSpecifiedBenchmarks(&counter);
    errors = counter.errors();
  } else {
    NullReporter quiet;  // and no file reporter: --benchmark_out was dropped above
    ErrorCounter counter(&quiet);
    benchmark::RunSpecifiedBenchmarks(&counter);
    errors = counter.errors();
  }
  benchmark::Shutdown();
  return static_cast<int>(sum_over_ranks(*world.control, errors));
}

std::string benchmark_filter(int argc, char** argv) {
  const std::string flag = "--benchmark_filter=";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind(flag, 0) == 0) return argv[i] + flag.size();
  }
  return "";
}

int benchmark_main(
    int argc, char** argv, const char* program,
    const std::function<void(World&, Options&, const std::string& filter)>& register_benchmarks) {
  // The trainers' allocator setting, so that an operation costs the same here as in training.
  // Without it, a library that mallocs a scratch buffer per call gets fresh mmapped pages above
  // glibc's 32 MiB mmap threshold and faults them in each time (OpenMPI's allreduce of 36.9 MB:
  // 214 ms instead of 24 ms on 4 local ranks).
  keep_freed_memory();
  int code = guarded_main(program, [&] {
    Options options = parse_options(&argc, argv, program);
    World world = join(options);
    register_benchmarks(world, options, benchmark_filter(argc, argv));
    int failed = run_benchmarks(&argc, argv, options, world);
    if (failed > 0 && world.comm->rank() == 0) {
      fmt::print(stderr, "{}: error: {} benchmark(s) failed\n", program, failed);
    }
    return failed > 0 ? 1 : 0;
  });
  if (code == 0) finalize_mpi();
  return code;
}

}  // namespace dtbench::bench
