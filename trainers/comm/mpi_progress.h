#pragma once
// OpenMPI moves a nonblocking operation forward only while some thread of the process is inside
// an MPI call: a collective started from a gradient hook otherwise sits until the trainer waits
// for it after backward. MpiProgress is one thread that takes over such requests and tests them
// until they complete: every 100 microseconds while the others compute, without pause while
// some thread waits for one of them (as MPI_Wait would). Needs MPI_THREAD_MULTIPLE.
#include <mpi.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "comm/communicator.h"

namespace dtbench {

class MpiProgress {
 public:
  MpiProgress();
  ~MpiProgress();  // stops testing; requests still pending are abandoned (a failed run)
  MpiProgress(const MpiProgress&) = delete;
  MpiProgress& operator=(const MpiProgress&) = delete;

  // Takes over a request just started; `what` names the call in an error message. From here
  // on only this thread tests it: the Request returned waits for the progress thread's word.
  std::unique_ptr<Request> adopt(MPI_Request request, std::string what);

 private:
  struct Outcome;
  class Adopted;
  struct Pending {
    MPI_Request request;
    std::shared_ptr<Outcome> outcome;
  };
  void run();
  bool test_pending();  // one MPI_Testsome over what is pending; true if any completed
  void wait(const Outcome& outcome);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Pending> pending_;  // appended by adopt(), removed only by the progress thread
  int waiters_ = 0;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the members it uses exist
};

}  // namespace dtbench
