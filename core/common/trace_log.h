#pragma once
// One rank's trace of its timed iterations, as Chrome trace events (docs/traces.md): complete
// spans ("ph": "X") and instants ("ph": "i") on one track per thread that recorded, the
// training thread first. Thread-safe. Recording is off until set_recording(true), so that
// callers record unconditionally and the trainer decides which iterations are kept.
#include <nlohmann/json.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace dtbench {

// An event's arguments: at most two integers under names that outlive the log (literals).
class TraceArgs {
 public:
  TraceArgs() = default;
  TraceArgs(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): "no arguments"
  TraceArgs(std::initializer_list<std::pair<const char*, int64_t>> args);
  nlohmann::json json() const;  // null when there are none

 private:
  std::array<std::pair<const char*, int64_t>, 2> args_{};
  size_t size_ = 0;
};

// Recording allocates nothing while a timed iteration runs: events are plain records in storage
// reserved up front, turned into JSON only by events(). Small allocations made and kept during
// training change how glibc's malloc reuses backward's large buffers: traced with a JSON object
// per event, VGG-11's backward took about 5,000 minor page faults an iteration against 100-300
// untraced, and 17% longer (docs/traces.md).
class TraceLog {
 public:
  using Clock = std::chrono::steady_clock;

  // Events the storage holds before it grows (an allocation during training).
  static constexpr size_t kReservedEvents = 1 << 16;
  TraceLog() { events_.reserve(kReservedEvents); }

  // Times are microseconds since this origin: the trainer sets it just after a barrier, so
  // that the ranks' tracks line up to within the barrier's skew.
  void set_origin(Clock::time_point origin) { origin_ = origin; }
  void set_recording(bool on) { recording_ = on; }
  bool recording() const { return recording_; }
  // Names the calling thread's track (otherwise "communication thread N": the threads that
  // record besides the trainer's are those that communicate).
  void name_thread(const std::string& name);

  // Names and categories are literals (or outlive the log): they are kept as pointers.
  void span(const char* name, const char* category, Clock::time_point begin, Clock::time_point end,
            TraceArgs args = nullptr);
  void instant(const char* name, const char* category, Clock::time_point at,
               TraceArgs args = nullptr);
  // A span that may overlap others on its thread (a nonblocking operation in flight): an async
  // begin/end pair ("ph": "b"/"e", its own id), drawn on a row of its own.
  void async_span(const char* name, const char* category, Clock::time_point begin,
                  Clock::time_point end, TraceArgs args = nullptr);

  // This rank's events with "pid": rank, the track names first (metadata events).
  nlohmann::json events(int rank) const;

 private:
  enum class Kind : char { span, instant, async };
  struct Event {
    const char* name;
    const char* category;
    Kind kind;
    int track;
    Clock::time_point begin, end;
    TraceArgs args;
  };
  void add(Event e);
  int track_locked();  // the calling thread's track; mutex_ held
  double micros(Clock::time_point t) const;

  Clock::time_point origin_ = Clock::now();
  std::atomic<bool> recording_{false};
  mutable std::mutex mutex_;
  std::map<std::thread::id, int> tracks_;
  std::vector<std::string> track_names_;
  std::vector<Event> events_;
};

// A span from construction to destruction, recorded if log is set and recording at the start.
class ScopedSpan {
 public:
  ScopedSpan(TraceLog* log, const char* name, const char* category, TraceArgs args = nullptr)
      : log_(log != nullptr && log->recording() ? log : nullptr),
        name_(name),
        category_(category),
        args_(args),
        begin_(log_ != nullptr ? TraceLog::Clock::now() : TraceLog::Clock::time_point()) {}
  ~ScopedSpan() {
    if (log_ != nullptr) log_->span(name_, category_, begin_, TraceLog::Clock::now(), args_);
  }
  ScopedSpan(const ScopedSpan&) = delete;
  ScopedSpan& operator=(const ScopedSpan&) = delete;

 private:
  TraceLog* log_;
  const char* name_;
  const char* category_;
  TraceArgs args_;
  TraceLog::Clock::time_point begin_;
};

}  // namespace dtbench
