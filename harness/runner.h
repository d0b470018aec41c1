#pragma once
// `dtbench run`: a matrix over a hosts file, one directory per experiment under
// OUT/experiments/, resumable. Layout (docs/harness.md):
//   OUT/run.json                    matrix, hosts, the experiment list (rewritten each run)
//   OUT/system.json                 describe_run_system
//   OUT/experiments/<group>/<name>/ status.json, result.json (on success), stdout.log, stderr.log
#include <string>

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

}  // namespace dtbench
