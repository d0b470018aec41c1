#pragma once
// One collective as bench_collectives measures it, in the manner of nccl-tests: how big its
// buffers are, how they are filled for an iteration, the call itself, and how many elements of
// the result differ from the closed-form expectation. Bytes follow nccl-tests: the size of the
// whole vector (for gather/scatter/allgather/reduce_scatter, n parts of count/n elements).
// docs/collectives.md explains algbw, busbw and the factors.
#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "comm/communicator.h"

namespace dtbench::bench {

struct Buffers {
  at::Tensor in, out;
};

struct Collective {
  std::string name;
  bool split;                     // the vector is n per-rank parts: count must divide by n
  double (*busbw_factor)(int n);  // busbw = algbw x factor
  Buffers (*allocate)(int64_t count, const Communicator& comm);
  void (*fill)(Buffers& b, const Communicator& comm, int64_t iteration);
  void (*run)(Communicator& comm, Buffers& b);
  int64_t (*wrong)(const Buffers& b, const Communicator& comm, int64_t iteration);
};

// The input element e of rank r at iteration i: a small integer, so every sum is exact.
inline float seeded(int64_t iteration, int rank, int64_t e) {
  return static_cast<float>((iteration * 7 + e * 3) % 17 + rank);
}
// The sum of seeded(i, r, e) over n ranks.
inline float seeded_sum(int64_t iteration, int n, int64_t e) {
  return static_cast<float>(n * ((iteration * 7 + e * 3) % 17) + n * (n - 1) / 2);
}

// Fills t[k] = seeded(iteration, rank, first + k).
void fill_seeded(at::Tensor& t, int64_t iteration, int rank, int64_t first);
// Elements of t[k] that differ from want(first + k).
template <typename Want>
int64_t count_mismatches(const at::Tensor& t, int64_t first, Want want) {
  const float* data = t.data_ptr<float>();
  int64_t wrong = 0;
  for (int64_t k = 0; k < t.numel(); ++k) wrong += data[k] != want(first + k) ? 1 : 0;
  return wrong;
}

// The sum of every rank's vector, left in place (in) on every rank, or only on rank 0
// (root_only): allreduce, reduce, and the hand-written and composite sums.
Collective in_place_sum(const char* name, double (*factor)(int),
                        void (*run)(Communicator&, Buffers&), bool root_only);

inline double factor_one(int) {
  return 1.0;
}
inline double factor_allreduce(int n) {
  return 2.0 * (n - 1) / n;
}
inline double factor_parts(int n) {
  return static_cast<double>(n - 1) / n;
}

Collective allreduce_collective();
Collective reduce_collective();
Collective broadcast_collective();
Collective gather_collective();
Collective scatter_collective();
Collective allgather_collective();
Collective reduce_scatter_collective();
Collective ring_reduce_collective();
Collective ring_allreduce_collective();
Collective gather_scatter_collective();

// Every collective bench_collectives measures, in report order.
const std::vector<Collective>& collectives();

}  // namespace dtbench::bench
