#pragma once
// Counter-based randomness: every random choice in dtbench is a pure function of
// (seed, epoch, index, ...), so it does not depend on how many ranks share the work or in
// which order they draw. That is what makes the union of the ranks' batches equal the
// single-process batch, augmentation included.
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <vector>

namespace dtbench {

// SplitMix64 finaliser: a bijective, well-mixed 64-bit hash.
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Hash of several keys, order-sensitive.
inline uint64_t hash_keys(std::initializer_list<uint64_t> keys) {
  uint64_t h = 0x6a09e667f3bcc908ULL;
  for (uint64_t k : keys) h = mix64(h ^ k);
  return h;
}

// Uniform integer in [0, bound) from 64 random bits (Lemire's multiply-shift).
inline uint64_t below(uint64_t bits, uint64_t bound) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(bits) * bound) >> 64);
}

// A permutation of 0..n-1, fixed by (seed, epoch): Fisher-Yates driven by hash_keys.
inline std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed, uint64_t epoch) {
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  for (int64_t i = n - 1; i > 0; --i) {
    uint64_t j = below(hash_keys({seed, epoch, static_cast<uint64_t>(i)}), i + 1);
    std::swap(perm[i], perm[j]);
  }
  return perm;
}

}  // namespace dtbench
