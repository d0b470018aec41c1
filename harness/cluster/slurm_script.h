#pragma once
// `dtbench slurm-script`: a matrix as a ready sbatch script. The job asks for one task per
// node, turns the allocation's node list into a hosts file (one slot per node) and runs
// `dtbench run` inside it, where mpirun starts the ranks through Slurm.
#include <string>
#include <vector>

#include "run/matrix.h"

namespace dtbench {

struct SlurmScriptOptions {
  std::string dtbench;                // the dtbench program, absolute
  std::string matrix;                 // as `dtbench run --matrix` takes it
  std::string data_dir;               // absolute
  std::string out_dir;                // absolute: results, the job's output and its hosts file
  int nodes = 0;                      // 0: the matrix's largest experiment's ranks
  std::string partition;              // "": the default one
  std::string time_limit;             // sbatch --time; "": the partition's
  std::vector<std::string> run_args;  // more options for `dtbench run`
};

// The script's text. UserError when nodes is smaller than the matrix's largest experiment.
std::string slurm_script(const Matrix& matrix, const SlurmScriptOptions& options);

}  // namespace dtbench
