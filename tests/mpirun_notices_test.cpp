// OpenMPI's boxed notices after a failed rank, as mpirun prints them (4.1's and 5.0's, whose
// PRRTE words them differently), shortened.
#include "run/mpirun_notices.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace dtbench {
namespace {

using ::testing::ElementsAre;

const char* kRule = "--------------------------------------------------------------------------";

std::vector<std::string> shortened(const std::string& text) {
  std::vector<std::string> out;
  MpirunNotices notices([&](const std::string& line) { out.push_back(line); });
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) notices.line(line);
  notices.finish();
  return out;
}

std::string exit_boxes(int rank, int code) {
  std::ostringstream s;
  s << kRule << "\nPrimary job  terminated normally, but 1 process returned\n"
    << "a non-zero exit code. Per user-direction, the job has been aborted.\n"
    << kRule << "\n"
    << kRule << "\n"
    << "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
    << "the job to be terminated. The first process to do so was:\n\n"
    << "  Process name: [[2074,1]," << rank << "]\n  Exit code:    " << code << "\n"
    << kRule << "\n";
  return s.str();
}

TEST(MpirunNotices, AfterARanksOwnErrorOnlyThatLineIsLeft) {
  EXPECT_THAT(shortened("dtbench-train: error: global batch 30 does not divide by the 4 ranks\n" +
                        exit_boxes(3, 2)),
              ElementsAre("dtbench-train: error: global batch 30 does not divide by the 4 ranks"));
}

TEST(MpirunNotices, ASilentFailureBecomesOneLineNamingTheRank) {
  EXPECT_THAT(shortened(exit_boxes(3, 2)), ElementsAre("mpirun: rank 3 exited with status 2"));
  // Without the second box (mpirun does not always print it), still one line.
  std::string first = exit_boxes(1, 5);
  first = first.substr(0, first.find(kRule, first.find("aborted.")) + std::string(kRule).size());
  EXPECT_THAT(shortened(first), ElementsAre("mpirun: a rank exited with a non-zero status"));
}

TEST(MpirunNotices, OtherNoticesKeepTheirWordsWithoutTheRules) {
  const std::string killed = std::string(kRule) +
                             "\nmpirun noticed that process rank 1 with PID 0 on node vm exited "
                             "on signal 9 (Killed).\n" +
                             kRule + "\n";
  EXPECT_THAT(
      shortened(killed + exit_boxes(1, 137)),
      ElementsAre("mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 "
                  "(Killed)."));
}

// OpenMPI 5.0: prterun's one box, the process named by its PRRTE namespace, and a notice
// wrapped over two lines.
TEST(MpirunNotices, OpenMpi5sNoticesAreReadAlike) {
  const std::string exited = std::string(kRule) +
                             "\nprterun detected that one or more processes exited with non-zero "
                             "status,\nthus causing the job to be terminated. The first process "
                             "to do so was:\n\n   Process name: [prterun-vm-23528@1,1]\n   Exit "
                             "code:    2\n" +
                             kRule + "\n";
  EXPECT_THAT(shortened(exited), ElementsAre("mpirun: rank 1 exited with status 2"));
  const std::string killed = std::string(kRule) +
                             "\nprterun noticed that process rank 1 with PID 23637 on node vm "
                             "exited on\nsignal 9 (Killed).\n" +
                             kRule + "\n";
  EXPECT_THAT(shortened(killed), ElementsAre("prterun noticed that process rank 1 with PID 23637 "
                                             "on node vm exited on signal 9 (Killed)."));
  EXPECT_EQ(failure_line(killed),
            "prterun noticed that process rank 1 with PID 23637 on node vm exited on signal 9 "
            "(Killed).");
}

TEST(MpirunNotices, ABoxLeftOpenIsPassedOnWhole) {
  EXPECT_THAT(shortened(std::string(kRule) + "\nThere are not enough slots available\n"),
              ElementsAre(kRule, "There are not enough slots available"));
}

TEST(MpirunNotices, TheFailureLineIsTheLastErrorOrTheLastWord) {
  EXPECT_EQ(
      failure_line("Epoch 1\ndtbench-train: error: gloo: rank 1: peer gone\n" + exit_boxes(1, 3)),
      "dtbench-train: error: gloo: rank 1: peer gone");
  EXPECT_EQ(failure_line("srun: error: n2: task 2: Killed\nsrun: Terminating StepId=7.0\n"),
            "srun: error: n2: task 2: Killed");
  EXPECT_EQ(
      failure_line(std::string(kRule) +
                   "\nmpirun noticed that process rank 1 with PID 0 on node n2 exited on "
                   "signal 9 (Killed).\n" +
                   kRule + "\n"),
      "mpirun noticed that process rank 1 with PID 0 on node n2 exited on signal 9 (Killed).");
  EXPECT_EQ(failure_line(""), "");
}

// OpenMPI 5.0's start-up race, as a rank's stack and srun said it on Debian 13; a crash of
// dtbench's own, or an ordinary failure, is not it.
TEST(MpirunNotices, OpenMpisStartUpRaceIsToldApart) {
  const std::string race =
      "[n3:10269:0:10269] Caught signal 11 (Segmentation fault: address not mapped to object at "
      "address 0xe0)\n"
      " 4  /lib/x86_64-linux-gnu/libmpi.so.40(mca_pml_ob1_recv_frag_callback_match+0xaa)\n"
      " 9  /lib/x86_64-linux-gnu/libopen-pal.so.80(opal_progress+0x84)\n"
      "10  /lib/x86_64-linux-gnu/libmpi.so.40(ompi_mpi_init+0x435)\n"
      "srun: error: n3: task 3: Segmentation fault\n";
  EXPECT_TRUE(mpi_init_race(race));
  EXPECT_FALSE(mpi_init_race("srun: error: n3: task 3: Segmentation fault\n"));
  EXPECT_FALSE(mpi_init_race(
      " 4  /lib/x86_64-linux-gnu/libmpi.so.40(mca_pml_ob1_recv_frag_callback_match+0xaa)\n"
      " 9  /dtbench/dtbench-train(+0x8cfc1)\n"));
  EXPECT_FALSE(mpi_init_race("dtbench-train: error: no MNIST files in /data\n"));
}

// A failure worth one more launch says why in status.json: the start-up race, or a loss turned
// NaN (dtbench-train's line, as mpirun passes it on); any other failure is not relaunched.
TEST(MpirunNotices, ARaceOrADivergedLossIsRelaunchedAndNothingElse) {
  EXPECT_EQ(relaunch_reason(" 4  libmpi.so.40(mca_pml_ob1_recv_frag_callback_match+0xaa)\n"
                            "10  libmpi.so.40(ompi_mpi_init+0x435)\n"),
            "a rank crashed inside MPI_Init (OpenMPI's start-up race)");
  EXPECT_EQ(relaunch_reason("dtbench-train: error: the loss is -nan at epoch 1, step 2: the "
                            "training diverged\nprterun detected that one or more processes "
                            "exited with non-zero status\n"),
            "the loss turned NaN or infinite (the training diverged)");
  EXPECT_EQ(relaunch_reason("dtbench-train: error: no MNIST files in /data\n"), "");
  EXPECT_EQ(relaunch_reason("srun: error: n3: task 3: Killed\n"), "");
  EXPECT_EQ(relaunch_reason(""), "");
}

}  // namespace
}  // namespace dtbench
