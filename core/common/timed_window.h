#pragma once
// The course's timing window: iteration 0 is warm-up; the time per iteration is the mean over
// iterations 1..39 (docs/result-record.md).
#include <cstdint>

namespace dtbench {

inline constexpr int64_t kTimedFirst = 1;
inline constexpr int64_t kTimedLast = 39;

}  // namespace dtbench
