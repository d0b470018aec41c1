#pragma once
// `dtbench run`: a matrix over a hosts file, one directory per experiment under
// OUT/experiments/, resumable. Layout (docs/harness.md):
//   OUT/run.json                    matrix, hosts, the experiment list (rewritten each run)
//   OUT/system.json                 describe_run_system
//   OUT/experiments/<group>/<name>/ status.json, result.json (on success), stdout.log, stderr.log
#include <string>
#include <vector>

namespace dtbench {

struct RunOptions {
  std::string hosts_path;
  std::string matrix = "quick";
  std::string out_dir;  // "": results/<matrix>-<hosts file name>-<hostname>
  std::string data_dir;
  std::string matrices_dir;
  std::string bin_dir;
  std::string netns_agent;
  bool dry_run = false;
  bool retry_failed = false;
};

// Returns the exit code: 0 when no experiment failed or timed out (skipped ones, which need the
// emulated cluster, are reported but are not failures), 1 otherwise, 130 when interrupted.
int run_matrix(const RunOptions& options);

// `dtbench launch`: runs command on `ranks` ranks of the hosts file with the launch settings
// `dtbench run` gives its experiments (for an emulated cluster, which must be up: the agent,
// the interfaces). Returns the command's exit code (128 + signal if a signal ended it).
int launch(const RunOptions& options, int ranks, const std::vector<std::string>& command);

}  // namespace dtbench
