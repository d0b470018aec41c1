#pragma once
// Experiment matrices (harness/matrices/<name>.json). A matrix is a list of entries; every
// value given as an array is a dimension, and an entry expands to the cartesian product:
//
//   {"description": "...", "extends": "standard", "repeat": 3,
//    "defaults": {"ranks": 4, "max_iters": 40},
//    "entries": [{"group": "sync_methods", "kind": "train", "model": "vgg11",
//                 "sync": ["allreduce", "bucketed"], "backend": ["mpi", "gloo"],
//                 "exclude": [{"sync": "c10d_ddp", "backend": "mpi"}], "estimate_s": 60}]}
//
// "repeat" asks for that many repetitions of every experiment, run in rounds (runner.h);
// "until_within" (a percentage) and "budget_s" are the matrix's own --until-within and --budget,
// which make it a study (runner.h).
// Harness keys: group, kind (train | collectives | python_ddp), ranks, time_limit_s (the
// harness kills an experiment that runs longer), estimate_s, exclude and the network profile
// link_rate, bottleneck_host, bottleneck_rate (emulated cluster only), trace (true: the
// training run writes trace.json.gz beside its result, docs/traces.md) and ranks_per_host (that
// many ranks on each host, mpirun's --map-by ppr:N:node, instead of filling each host's slots in
// order; skipped where the hosts file has too few hosts with that many slots), phase (a study's:
// calibrate | measure | accuracy | verify, "measure" when not given; runner.h). Every other key is
// an option of the experiment's binary (option_args); a training experiment takes dtbench-train's
// options, checked by its own parser. docs/harness.md lists them.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "record/config.h"
#include "run/hosts_file.h"

namespace dtbench {

struct NetworkProfile {
  std::string link_rate;        // every host's link, e.g. "1gbit"; "" = the cluster's own
  int bottleneck_host = -1;     // this host (0-based) gets bottleneck_rate instead
  std::string bottleneck_rate;  // e.g. "100mbit"
  bool empty() const { return link_rate.empty() && bottleneck_host < 0; }
};

struct Experiment {
  std::string name;  // "<group>/<key>=<value>,..." (all parameters, sorted): unique in a matrix
  std::string group;
  std::string kind;  // train | collectives | python_ddp
  int ranks = 1;
  double time_limit_s = 900;
  double estimate_s = 60;
  nlohmann::json params = nlohmann::json::object();  // the binary's options, key -> scalar
  NetworkProfile network;
  bool trace = false;             // --trace <its repetition's directory>/trace.json.gz
  int ranks_per_host = 0;         // 0: mpirun fills each host's slots in order
  int mpi_fragment = 0;           // bytes of OpenMPI's TCP fragments; 0: the ranks' own (128 KiB)
  std::string phase = "measure";  // calibrate | measure | accuracy | verify (a study's)

  // Whether these hosts can place it: with ranks_per_host, ranks / ranks_per_host hosts of at
  // least that many slots. Empty when they can, else why not.
  std::string unplaceable_on(const HostsFile& hosts) const;

  std::string dir() const;  // relative directory for its outputs: "<group>/<sanitised rest>"
  nlohmann::json to_json() const;
};

struct Matrix {
  std::string name, path, description;
  int repeat = 1;       // repetitions of every experiment the matrix asks for
  double within = 0;    // its own --until-within (a fraction); 0: none
  double budget_s = 0;  // its own --budget; 0: none
  std::vector<Experiment> experiments;
  double estimate_s() const;  // of one repetition
};

// An experiment's parameters as its binary's options: key k becomes --k with '_' as '-', a
// boolean a flag (true: --k, false: --no-k).
std::vector<std::string> option_args(const nlohmann::json& params);

// A training experiment's options as dtbench-train resolves them, on its ranks (world_size).
// UserError for options the trainer would reject.
TrainConfig train_config_of(const Experiment& e);

// name_or_path: a name in matrices_dir (smoke, quick, ...) or a path to a .json file.
// UserError on an unknown name, unreadable or malformed file, unknown key or value.
Matrix load_matrix(const std::string& name_or_path, const std::string& matrices_dir);

// `dtbench matrices`: every matrix of matrices_dir as a Markdown table, one row each: its name,
// its description, and its experiments, repetitions and estimated time (the sum of its
// experiments' estimate_s, times its repetitions), as `dtbench run --dry-run` counts them.
std::string matrices_table(const std::string& matrices_dir);

// Checks that the experiments fit on these hosts (ranks <= slots) and that network profiles
// are only asked of an emulated cluster. UserError naming the first experiment that does not.
void check_matrix_fits(const Matrix& matrix, const HostsFile& hosts);

}  // namespace dtbench
