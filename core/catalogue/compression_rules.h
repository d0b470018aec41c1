#pragma once
// What the lossy hooks choose to send, shared by the hooks that make the choice
// (topk.cpp, powersgd.cpp), the benchmark that checks them
// (benchmarks/collectives/hooks.cpp) and the cost model that prices it (model/iteration_model.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dtbench {

// top-k: how many of a bucket's elements it sends, k = ceil(fraction x elements).
inline int64_t topk_count(double fraction, int64_t elements) {
  return std::min(elements,
                  static_cast<int64_t>(std::ceil(fraction * static_cast<double>(elements))));
}

// PowerSGD (PyTorch's powerSGD_hook, min_compression_rate 2): a gradient viewed as an n x m
// matrix is sent as two factors of rank r = min(n, m, rank) when those, (n + m) r elements, are
// under half of its n m; otherwise as it is. r, or 0 for a gradient sent uncompressed.
inline int64_t powersgd_compressed_rank(int64_t n, int64_t m, int64_t rank) {
  constexpr int64_t kMinCompressionRate = 2;
  const int64_t r = std::min({n, m, rank});
  return (n + m) * r * kMinCompressionRate < n * m ? r : 0;
}

}  // namespace dtbench
