#pragma once
// One rank's trace of its timed iterations, as Chrome trace events (docs/traces.md): complete
// spans ("ph": "X") and instants ("ph": "i") on one track per thread that recorded, the
// training thread first. Thread-safe. Recording is off until set_recording(true), so that
// callers record unconditionally and the trainer decides which iterations are kept.
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace dtbench {

class TraceLog {
 public:
  using Clock = std::chrono::steady_clock;

  // Times are microseconds since this origin: the trainer sets it just after a barrier, so
  // that the ranks' tracks line up to within the barrier's skew.
  void set_origin(Clock::time_point origin) { origin_ = origin; }
  void set_recording(bool on) { recording_ = on; }
  bool recording() const { return recording_; }
  // Names the calling thread's track (otherwise "communication thread N": the threads that
  // record besides the trainer's are those that communicate).
  void name_thread(const std::string& name);

  void span(const std::string& name, const char* category, Clock::time_point begin,
            Clock::time_point end, nlohmann::json args = nullptr);
  void instant(const std::string& name, const char* category, Clock::time_point at,
               nlohmann::json args = nullptr);
  // A span that may overlap others on its thread (a nonblocking operation in flight): an async
  // begin/end pair ("ph": "b"/"e", its own id), drawn on a row of its own.
  void async_span(const std::string& name, const char* category, Clock::time_point begin,
                  Clock::time_point end, nlohmann::json args = nullptr);

  // This rank's events with "pid": rank, the track names first (metadata events).
  nlohmann::json events(int rank) const;

 private:
  int track_locked();  // the calling thread's track; mutex_ held
  // Appends an event with the fields every kind has (and args, unless null); mutex_ held.
  nlohmann::json& add_locked(const std::string& name, const char* category, const char* ph,
                             Clock::time_point at, int track, nlohmann::json args);
  double micros(Clock::time_point t) const;

  Clock::time_point origin_ = Clock::now();
  std::atomic<bool> recording_{false};
  mutable std::mutex mutex_;
  std::map<std::thread::id, int> tracks_;
  std::vector<std::string> track_names_;
  std::vector<nlohmann::json> events_;
  int64_t async_ids_ = 0;
};

// A span from construction to destruction, recorded if log is set and recording at the start.
class ScopedSpan {
 public:
  ScopedSpan(TraceLog* log, std::string name, const char* category, nlohmann::json args = nullptr)
      : log_(log != nullptr && log->recording() ? log : nullptr),
        name_(std::move(name)),
        category_(category),
        args_(std::move(args)),
        begin_(log_ != nullptr ? TraceLog::Clock::now() : TraceLog::Clock::time_point()) {}
  ~ScopedSpan() {
    if (log_ != nullptr)
      log_->span(name_, category_, begin_, TraceLog::Clock::now(), std::move(args_));
  }
  ScopedSpan(const ScopedSpan&) = delete;
  ScopedSpan& operator=(const ScopedSpan&) = delete;

 private:
  TraceLog* log_;
  std::string name_;
  const char* category_;
  nlohmann::json args_;
  TraceLog::Clock::time_point begin_;
};

}  // namespace dtbench
