#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace dtbench {

// One background thread that runs communication jobs in submission order. Submission order is
// the same on every rank (autograd visits the same graph the same way), so the collectives
// inside the jobs match up across ranks. A job's exception is rethrown by wait_idle().
class CommWorker {
 public:
  CommWorker();
  ~CommWorker();  // finishes queued jobs first, so every rank leaves with its collectives matched
  CommWorker(const CommWorker&) = delete;
  CommWorker& operator=(const CommWorker&) = delete;

  void submit(std::function<void()> job);
  void wait_idle();

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> jobs_;
  bool busy_ = false, stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace dtbench
