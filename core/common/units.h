#pragma once
// Sizes written once: a MiB, and the bytes of one float32, the type models train in and the
// collectives benchmarks move.
#include <cstdint>

namespace dtbench {

inline constexpr int64_t kMiB = int64_t{1} << 20;
inline constexpr int64_t kFloatBytes = sizeof(float);

}  // namespace dtbench
