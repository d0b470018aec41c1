#pragma once
// What `dtbench report` reads: results directories written by `dtbench run` (run.json,
// system.json, experiments/*/*/{status,result}.json), grouped by system. A result that does
// not parse is named in warnings and skipped, never used.
#include <nlohmann/json.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "record/record.h"

namespace dtbench {

struct SystemResults;
struct RunTrace;       // report/traces/run_trace.h
struct Prediction;     // report/predict/predict.h
struct Extrapolation;  // report/predict/extrapolation.h

// How quiet the machine was while one repetition ran (status.json's noise guard; results
// written before the guard have none: NaN).
struct Conditions {
  std::string name;  // the experiment
  int repeat = 1;
  int attempts = 1;
  double foreign_load = std::nan(""), steal = std::nan(""), own_cpu_s = std::nan("");
  double wall_s = std::nan("");
  bool noisy = false;
};

struct TrainRun {
  std::string group, name, kind;
  nlohmann::json params;  // the experiment's parameters (status.json)
  int ranks = 1;
  int repeat = 1;   // the repetition (round) it ran in
  std::string dir;  // the repetition's directory (result.json, trace.json.gz when traced)
  // Its trace (trace.json.gz, or trace.json as older results kept it); "" when not traced.
  std::string trace_file() const;
  Conditions conditions;
  std::string bottleneck_rate;  // "" unless the experiment shaped a bottleneck link
  int bottleneck_host = -1;     // the host whose link it shaped
  RunRecord record;
  // What its trace shows, parsed once by trace_of() (report/traces/run_trace.h) and kept here.
  mutable std::shared_ptr<const RunTrace> trace;
};

struct CollectiveRun {
  std::string group, op, backend;
  int ranks = 1;
  int64_t bytes = 0;
  std::string model_case;  // "vgg11", "lenet5": a model's gradient size; "": the sweep's own
  double time_s = 0, algbw = 0, busbw = 0;  // algbw, busbw in bytes/s
  double machine_cpu_s = -1;  // per operation and machine; -1: not measured (older results)
  double chained_s = -1;      // per operation, chained without barriers; -1: not measured
  double rest_s = 0;          // every rank idled this long before each operation (--rest-ms)
  int machines = 0;           // the machines the ranks ran on; 0: not recorded
  int hosts = 0;              // the hosts (host names) they ran on; 0: not recorded
};

// json's destructor unwinds nested values through a std::vector, which may allocate: clang-tidy
// sees an exception escape the implicit destructor of a SystemResults built in a test.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct SystemResults {
  std::string label;      // "<hostname>: <cpu> x<cores>, hosts <file>[, links <rate>]"
  nlohmann::json system;  // system.json of the first directory with this label
  std::vector<std::string> dirs, matrices;
  std::vector<TrainRun> runs;
  std::vector<CollectiveRun> collectives;
  // Sweeps whose operations each followed a rest (rest_s > 0): apart, so that what prices and
  // draws the sweeps reads the operations between barriers only.
  std::vector<CollectiveRun> rested;
  std::vector<Conditions> conditions;  // of every finished repetition, in load order
  // The cost model's prediction of its experiments, made once by prediction_of()
  // (report/predict/predict.h) and kept here.
  mutable std::shared_ptr<const Prediction> prediction;
  // The same past the ranks it was fitted on, made once by extrapolation_of().
  mutable std::shared_ptr<const Extrapolation> extrapolation;
};

struct Results {
  std::vector<SystemResults> systems;  // most training runs first
  std::vector<std::string> warnings;   // "skipped <file>: <why>"
};

// UserError when a directory does not exist or none of them holds any finished experiment.
// each_directory: every directory is a system of its own (labelled with its name), even where
// two were measured on the same machine; otherwise directories of one machine are merged.
Results load_results(const std::vector<std::string>& dirs, bool each_directory = false);

// oneDNN's kernels (libtorch's CPU convolutions) that the system's training runs had, as their
// records say (system.cpu_kernels): "oneDNN default", "environment (ONEDNN_MAX_CPU_ISA=AVX2)";
// each with its number of runs when they differ; "not recorded" for records made before it.
std::string cpu_kernels_of(const SystemResults& s);

}  // namespace dtbench
