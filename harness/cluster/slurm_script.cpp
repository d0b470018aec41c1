#include "cluster/slurm_script.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace dtbench {
namespace {

// text as one word of a shell command line (quoted unless it is plainly one).
std::string shell_quoted(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-./=:,+@%") == std::string::npos;
  if (plain) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string slurm_script(const Matrix& matrix, const SlurmScriptOptions& o) {
  int largest = 1;
  for (const auto& e : matrix.experiments) largest = std::max(largest, e.ranks);
  const int nodes = o.nodes > 0 ? o.nodes : largest;
  require(nodes >= largest,
          fmt::format("--nodes {}: matrix {} has an experiment of {} ranks (one per node)", nodes,
                      matrix.name, largest));
  std::string sbatch = fmt::format(
      "#SBATCH --job-name=dtbench-{}\n"
      "#SBATCH --nodes={}\n"
      "#SBATCH --ntasks-per-node=1\n"
      "#SBATCH --output={}/slurm-%j.out\n",
      matrix.name, nodes, o.out_dir);
  if (!o.partition.empty()) sbatch += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.time_limit.empty()) sbatch += fmt::format("#SBATCH --time={}\n", o.time_limit);
  std::string more;
  for (const auto& a : o.run_args) more += " " + shell_quoted(a);
  return fmt::format(
      "#!/bin/bash\n"
      "# dtbench's matrix {0} as a Slurm job (written by `dtbench slurm-script`): one rank per\n"
      "# node, the allocation's nodes as the hosts file, `dtbench run` inside the allocation\n"
      "# (mpirun starts the ranks through Slurm). Submit: sbatch [--wait] THIS-FILE\n"
      "{1}"
      "set -euo pipefail\n"
      "hosts={2}/hosts-slurm-$SLURM_JOB_ID\n"
      "scontrol show hostnames \"$SLURM_JOB_NODELIST\" | sed 's/$/ slots=1/' > \"$hosts\"\n"
      "exec {3} run --hosts \"$hosts\" --matrix {4} --data-dir {5} --out {2}{6}\n",
      matrix.name, sbatch, shell_quoted(o.out_dir), shell_quoted(o.dtbench), shell_quoted(o.matrix),
      shell_quoted(o.data_dir), more);
}

}  // namespace dtbench
