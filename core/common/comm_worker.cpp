#include "common/comm_worker.h"

namespace dtbench {

CommWorker::CommWorker() : thread_([this] { run(); }) {}

CommWorker::~CommWorker() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return (jobs_.empty() && !busy_) || error_; });
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void CommWorker::submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  changed_.notify_all();
}

void CommWorker::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return (jobs_.empty() && !busy_) || error_; });
  if (error_) std::rethrow_exception(error_);
}

void CommWorker::run() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return stopping_ || (!jobs_.empty() && !error_); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      busy_ = true;
    }
    try {
      job();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      busy_ = false;
    }
    changed_.notify_all();
  }
}

}  // namespace dtbench
