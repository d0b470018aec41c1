#pragma once
// The one place where training time is measured. An iteration is cut into consecutive
// phases by lap() calls, so the phases add up exactly to the iteration's wall time. With a
// TraceLog, each lap is also a span (category "phase") inside the iteration's span.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common/trace_log.h"

namespace dtbench {

enum class Phase : size_t { data, forward, backward, sync, optimizer };
constexpr size_t kPhaseCount = 5;
constexpr std::array<const char*, kPhaseCount> kPhaseNames = {"data", "forward", "backward", "sync",
                                                              "optimizer"};

struct IterationTimes {
  std::array<double, kPhaseCount> phase_s{};
  double total_s = 0;
};

class PhaseTimer {
 public:
  using Clock = std::chrono::steady_clock;
  static_assert(std::is_same_v<Clock, TraceLog::Clock>);

  PhaseTimer() = default;
  // Traces iteration `iteration` into trace (when it is recording).
  PhaseTimer(TraceLog* trace, int64_t iteration) : trace_(trace), iteration_(iteration) {}

  void start() {
    times_ = {};
    start_ = last_ = Clock::now();
  }
  // Charges the time since the previous start()/lap() to phase.
  void lap(Phase phase) {
    auto now = Clock::now();
    times_.phase_s[static_cast<size_t>(phase)] += seconds(last_, now);
    if (trace_ != nullptr)
      trace_->span(kPhaseNames[static_cast<size_t>(phase)], "phase", last_, now);
    last_ = now;
  }
  IterationTimes finish() {
    times_.total_s = seconds(start_, last_);
    if (trace_ != nullptr) {
      trace_->span("iteration", "iteration", start_, last_, {{"iteration", iteration_}});
    }
    return times_;
  }

 private:
  static double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  }
  Clock::time_point start_, last_;
  IterationTimes times_;
  TraceLog* trace_ = nullptr;
  int64_t iteration_ = 0;
};

}  // namespace dtbench
