#pragma once
// The one place where training time is measured. An iteration is cut into consecutive
// phases by lap() calls, so the phases add up exactly to the iteration's wall time.
#include <array>
#include <chrono>
#include <cstddef>

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

  void start() {
    times_ = {};
    start_ = last_ = Clock::now();
  }
  // Charges the time since the previous start()/lap() to phase.
  void lap(Phase phase) {
    auto now = Clock::now();
    times_.phase_s[static_cast<size_t>(phase)] += seconds(last_, now);
    last_ = now;
  }
  IterationTimes finish() {
    times_.total_s = seconds(start_, last_);
    return times_;
  }

 private:
  static double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  }
  Clock::time_point start_, last_;
  IterationTimes times_;
};

}  // namespace dtbench
