#pragma once
// What every dtbench benchmark binary shares: joining the world (the options of dtbench-train's
// launch), Google Benchmark under MPI (only rank 0 reports and writes; the same iteration count
// everywhere; manual time = the slowest rank's), and the context every JSON carries.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "comm/launch.h"
#include "common/fault_plan.h"

namespace dtbench::bench {

struct World {
  std::unique_ptr<Communicator> comm;     // what the benchmarks measure (its bytes are counted)
  std::unique_ptr<Communicator> control;  // timing and checks, never measured
};

// Splits argv into Google Benchmark's flags (left in argv) and ours (parsed with the given
// CLI11 setup into LaunchOptions and extra flags). UserError on an unknown flag.
struct Options {
  LaunchOptions launch;
  FaultPlan faults;  // test only: --fault wrong corrupts every result before it is checked
  bool synthetic = false;
  std::string data_dir;
  int threads = 0;  // bench_train: intra-op threads per rank (0: the trainer's default)
  std::string hosts;
  std::string trace_dir;    // bench_train: a Chrome trace per benchmark here (docs/traces.md)
  double size_seconds = 2;  // bench_collectives: a size's operations stop past it (0: never)
  double rest_s = 0;  // bench_collectives: each operation between barriers after this long idle
};
Options parse_options(int* argc, char** argv, const char* program);

World join(const Options& options);

// The slowest rank's value (every rank gets it).
double max_over_ranks(Communicator& control, double seconds);
// The sum over ranks.
double sum_over_ranks(Communicator& control, double value);

// Runs the registered benchmarks: rank 0 with Google Benchmark's reporters, the other ranks
// silently (their --benchmark_out is dropped so that they never touch rank 0's file). Adds the
// context (git commit, world size, backend, library versions, system). Returns the number of
// benchmarks that failed on any rank.
int run_benchmarks(int* argc, char** argv, const Options& options, World& world);

// The value of --benchmark_filter in argv, "" if absent.
std::string benchmark_filter(int argc, char** argv);

// The whole main() of a benchmark binary: keeps freed memory as the trainers do
// (common/allocator.h; recorded in the context's dtbench_system), parses the options, joins the
// world, lets register_benchmarks register (given the --benchmark_filter value), runs them, and
// returns the exit code (1 if any benchmark failed on any rank; one line on stderr says so).
int benchmark_main(
    int argc, char** argv, const char* program,
    const std::function<void(World&, Options&, const std::string& filter)>& register_benchmarks);

}  // namespace dtbench::bench
