#include "comm/mpi_progress.h"

#include <chrono>

#include "common/mpi_check.h"

namespace dtbench {
namespace {

// How often the progress thread tests while nobody waits: often enough that a 1 Gbit/s link
// (12.5 kB per 100 microseconds) never drains the socket buffers between two tests.
constexpr auto kIdlePoll = std::chrono::microseconds(100);

}  // namespace

struct MpiProgress::Outcome {
  std::string what;
  bool done = false;
  TraceLog::Clock::time_point completed;  // when the progress thread saw it done
  std::string error;                      // set with done when the request failed
};

class MpiProgress::Adopted : public Request {
 public:
  Adopted(MpiProgress& progress, std::shared_ptr<Outcome> outcome)
      : progress_(progress), outcome_(std::move(outcome)) {}
  void wait() override { progress_.wait(*outcome_); }
  bool test() override {
    std::lock_guard<std::mutex> lock(progress_.mutex_);
    return outcome_->done;
  }
  std::optional<TraceLog::Clock::time_point> completed_at() const override {
    std::lock_guard<std::mutex> lock(progress_.mutex_);
    if (!outcome_->done) return std::nullopt;
    return outcome_->completed;
  }

 private:
  MpiProgress& progress_;
  std::shared_ptr<Outcome> outcome_;
};

MpiProgress::MpiProgress() : thread_([this] { run(); }) {}

MpiProgress::~MpiProgress() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

std::unique_ptr<Request> MpiProgress::adopt(MPI_Request request, std::string what) {
  auto outcome = std::make_shared<Outcome>();
  outcome->what = std::move(what);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back({request, outcome});
  }
  changed_.notify_all();
  return std::make_unique<Adopted>(*this, std::move(outcome));
}

void MpiProgress::wait(const Outcome& outcome) {
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiters_;
  changed_.notify_all();  // the progress thread stops pausing between tests
  changed_.wait(lock, [&] { return outcome.done; });
  --waiters_;
  if (!outcome.error.empty()) throw CommError(outcome.error);
}

void MpiProgress::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    if (stopping_) return;
    lock.unlock();
    bool any = test_pending();
    lock.lock();
    if (!any) changed_.wait_for(lock, kIdlePoll, [this] { return stopping_ || waiters_ > 0; });
  }
}

bool MpiProgress::test_pending() {
  std::vector<MPI_Request> requests;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& p : pending_) requests.push_back(p.request);
  }
  // Outside the lock: adopt() may append meanwhile; the first requests.size() stay in place.
  const int count = static_cast<int>(requests.size());
  std::vector<int> indices(count);
  int done = 0;
  int code = MPI_Testsome(count, requests.data(), &done, indices.data(), MPI_STATUSES_IGNORE);
  const auto now = TraceLog::Clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<bool> finished(count, code != MPI_SUCCESS);
  if (code != MPI_SUCCESS) {
    const std::string message = mpi_error_message(code, "MPI_Testsome", __FILE__, __LINE__);
    for (int i = 0; i < count; ++i)
      pending_[i].outcome->error = pending_[i].outcome->what + ": " + message;
  } else if (done != MPI_UNDEFINED) {
    for (int k = 0; k < done; ++k) finished[indices[k]] = true;
  }
  size_t kept = 0;
  bool any = false;
  for (size_t i = 0; i < pending_.size(); ++i) {
    if (i < finished.size() && finished[i]) {
      pending_[i].outcome->done = true;
      pending_[i].outcome->completed = now;
      any = true;
    } else {
      pending_[kept++] = std::move(pending_[i]);
    }
  }
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(kept), pending_.end());
  if (any) changed_.notify_all();
  return any;
}

}  // namespace dtbench
