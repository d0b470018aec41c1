#pragma once
// OpenMPI's notices, shortened: after a rank exits with a non-zero status, mpirun prints two
// boxed notices of 12 lines in all ("Primary job terminated normally, but ..." and "mpirun
// detected that one or more processes exited with non-zero status ..."). dtbench-train has then
// already said why in one line; the boxes only repeat that it failed. This passes mpirun's
// stderr on line by line, with those two boxes dropped (when nothing else was said, finish()
// says in one line which rank exited with which code) and every other box kept, its rules
// removed and each paragraph on one line. OpenMPI 5 (PRRTE's prterun) words them differently:
// no "terminated normally" box, a namespace in the process name, sentences wrapped.
#include <functional>
#include <string>
#include <vector>

namespace dtbench {

class MpirunNotices {
 public:
  explicit MpirunNotices(std::function<void(const std::string&)> out) : out_(std::move(out)) {}
  void line(const std::string& text);  // one line of mpirun's stderr, without its newline
  void finish();  // at the end: a box left open as it was, then the exit's line if it is due

 private:
  void close_box();

  std::function<void(const std::string&)> out_;
  std::vector<std::string> box_;  // the lines since a box's opening rule
  bool in_box_ = false;
  std::string exit_line_;      // what the exit boxes said, in one line
  bool others_spoke_ = false;  // a rank's own line, or another box, came through
};

// The line of a failed launch's stderr that says most of why: without OpenMPI's exit boxes, the
// last line that says "error" (dtbench-train's own, or srun's "srun: error: NODE: task 2:
// Killed"), else the last line mpirun or srun left (e.g. "mpirun noticed that process rank 1
// ... on node n2 exited on signal 9"); "" for an empty stderr.
std::string failure_line(const std::string& stderr_text);

// Whether a failed launch's stderr is OpenMPI 5.0's start-up race: a rank killed by a signal in
// ob1's match of a message that reached it inside MPI_Init (mca_pml_ob1_recv_frag_callback_match
// under ompi_mpi_init: the sender's MPI_COMM_WORLD was ready before the receiver's,
// open-mpi/ompi#12495). Nothing was measured yet; the harness launches such a repetition once
// more. dtbench's programs close the race with a fence after MPI_Init (common/mpi_start.h);
// this catches a launch that crashes so anyway.
bool mpi_init_race(const std::string& stderr_text);

// Whether a failed launch stopped because its loss turned NaN or infinite (dtbench-train's "the
// training diverged"). A seeded run repeats its arithmetic, so a method that diverges does so
// again; libtorch 2.x's oneDNN now and then gives NaN gradients that the next launch does not
// (docs/testing.md). The harness launches such a repetition once more, keeping both attempts.
bool training_diverged(const std::string& stderr_text);

// Why a failed launch's stderr makes it worth one more launch (one of the two above, as the
// experiment's status.json says it), "" when it does not.
std::string relaunch_reason(const std::string& stderr_text);

}  // namespace dtbench
