#pragma once
// `dtbench run`: a matrix over a hosts file, one directory per experiment and repetition under
// OUT/experiments/, resumable per repetition. Repetitions run in rounds: every experiment once
// per round, the order rotated from round to round, so that slow drift of the machine falls on
// every method alike. Every attempt runs under the noise guard (noise.h): the harness waits,
// bounded, for a quiet machine, records foreign load, steal and the experiment's own CPU, and
// reruns an attempt that was noisy. Layout (docs/harness.md):
//   OUT/run.json        matrix, hosts, repetitions, the experiment list (rewritten each run)
//   OUT/system.json     describe_run_system
//   OUT/experiments/<group>/<name>/rep-<k>/
//                       status.json (every attempt), result.json (on success), stdout.log,
//                       stderr.log; attempt-<a>/ keeps the files of a noisy attempt rerun
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "doctor/doctor.h"
#include "run/matrix.h"
#include "run/noise.h"

namespace dtbench {

// A cell of a study's verify phase in the order to measure it: its index among the cells, its
// predicted iteration time (NaN: not predicted) and what that rests on.
struct VerifyChoice {
  size_t index = 0;
  double predicted_s = 0;  // NaN: not predicted
  double expected_s = 0;   // per iteration, what the budget weighs the cell by (NaN: the matrix's)
  std::string basis;
};

struct RunOptions {
  std::string hosts_path;
  std::string matrix = "study";
  std::string out_dir;  // "": results/<matrix>-<hosts file name>-<hostname>
  std::string data_dir;
  std::string matrices_dir;
  std::string bin_dir;
  std::string netns_agent;
  std::string python_ddp;  // baselines/python_ddp.py
  int repeat = 0;          // repetitions of every experiment; 0: what the matrix says (1)
  // Repetitions until the answer holds: with within > 0, every experiment repeats in rounds
  // (at least `repeat`, 3 when that is unset) until the 95% interval of its mean iteration time
  // lies within +-within of the mean (0.03: 3%), or max_repeat repetitions (interval.h).
  double within = 0;
  int max_repeat = 10;
  // A study: the seconds it may take in all (earlier runs into the same directory included);
  // 0: the matrix's own budget_s, none if it has none. Phases run in turn (calibrate once,
  // measure, accuracy once, verify); a repetition whose estimate would end past the budget is
  // not started (measure stops early enough to leave accuracy and the first verify cells their
  // time). UserError before anything runs when calibration and one round of measurements do
  // not fit.
  double budget_s = 0;
  // The verify phase's cells in the order to measure them (each at most once), from the
  // results so far; empty or unset: the matrix's order. The CLI's asks the cost model.
  std::function<std::vector<VerifyChoice>(const std::string& out_dir,
                                          const std::vector<Experiment>& cells)>
      order_verify;
  NoisePolicy noise;
  bool dry_run = false;
  bool retry_failed = false;
  bool preflight = true;
  std::string launcher = "auto";  // auto | mpirun | srun (experiment_command.h)  // ask every host
                                  // first (doctor.h: reach, build, data)
  // Test only: group -> FaultPlan spec (common/fault_plan.h), passed as --fault to the binary of
  // every experiment in that group. Matrices cannot ask for faults.
  std::map<std::string, std::string> faults;
};

// The order of a run: (experiment index, repetition 1..rounds). Round r runs every experiment
// once, starting r * ceil(experiments / rounds) places further on, wrapping round.
std::vector<std::pair<size_t, int>> round_schedule(size_t experiments, int rounds);

// Returns the exit code: 0 when no experiment failed or timed out (skipped ones, which need the
// emulated cluster, are reported but are not failures), 1 otherwise, 130 when interrupted.
int run_matrix(const RunOptions& options);

// `dtbench doctor`: every check of doctor.h on the hosts file, a line each; returns 0 unless
// one FAILs (1).
int doctor_command(const RunOptions& options, const DoctorOptions& doctor);

// `dtbench launch`: runs command on `ranks` ranks of the hosts file with the launch settings
// `dtbench run` gives its experiments (for an emulated cluster, which must be up: the agent,
// the interfaces). Returns the command's exit code (128 + signal if a signal ended it).
int launch(const RunOptions& options, int ranks, const std::vector<std::string>& command);

}  // namespace dtbench
