#pragma once
// PowerSGD's choice for one gradient (PyTorch 1.13's powerSGD_hook, min_compression_rate 2),
// shared by the hook that makes it (trainers/sync/powersgd.cpp) and the cost model that prices
// it: viewed as an n x m matrix, it is sent as two factors of rank r = min(n, m, rank) when
// those, (n + m) r elements, are under half of its n m; otherwise it is sent as it is.
#include <algorithm>
#include <cstdint>

namespace dtbench::model {

// r, or 0 for a gradient sent uncompressed.
inline int64_t powersgd_compressed_rank(int64_t n, int64_t m, int64_t rank) {
  constexpr int64_t kMinCompressionRate = 2;
  const int64_t r = std::min({n, m, rank});
  return (n + m) * r * kMinCompressionRate < n * m ? r : 0;
}

}  // namespace dtbench::model
