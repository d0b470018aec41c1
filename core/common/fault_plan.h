#pragma once
// Test-only faults behind one seam: a plan parsed once from a binary's hidden --fault option
// (dtbench-train, bench_collectives) and consulted at named points, none inside a timed region.
// Matrices cannot ask for faults; tests pass --fault to a binary, or to `dtbench run` for one
// group of experiments.
//
//   kill:R     rank R kills itself (SIGKILL) as iteration 3 begins
//   hang:R     rank R stops answering (sleeps for ever, its watchdog off) as iteration 3 begins
//   corrupt:R  rank R perturbs its replica before every replica check
//   nan:R      rank R's parameters become NaN as iteration 3 begins (a kernel returning garbage)
//   wrong      rank 0 corrupts one element of every collective's result before it is checked
#include <cstdint>
#include <string>

namespace dtbench {

enum class FaultPoint {
  iteration_start,  // before an iteration's timer starts
  replica_check,    // before the ranks compare parameter checksums
  result_check,     // after a timed collective, before its result is checked
};

enum class Fault { none, kill, hang, corrupt, wrong, nan };

class FaultPlan {
 public:
  FaultPlan() = default;  // no fault
  // UserError naming the spec when it is not one of the forms above.
  static FaultPlan parse(const std::string& spec);

  // What `rank` is to do at `point` (iteration: the 0-based index of the iteration beginning).
  Fault at(FaultPoint point, int rank, int64_t iteration = 0) const;

  const std::string& spec() const { return spec_; }  // "" when there is no fault

 private:
  std::string spec_;
  Fault fault_ = Fault::none;
  int rank_ = 0;
};

// The iteration at which kill and hang strike: after the first timed ones have finished.
inline constexpr int64_t kFaultIteration = 3;

}  // namespace dtbench
