#pragma once
// One collective as bench_collectives measures it, in the manner of nccl-tests: how big its
// buffers are, how they are filled for an iteration, the call itself, and how many elements of
// the result differ from the closed-form expectation. Bytes follow nccl-tests: the size of the
// whole vector (for gather/scatter/allgather/reduce_scatter, n parts of count/n elements).
// docs/collectives.md explains algbw, busbw and the factors.
#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "sync/bucket_hook.h"

namespace dtbench::bench {

// A lossy hook's operation also keeps the hook (its error feedback and warm start carry over
// from one operation to the next, as from one iteration to the next in training) and the
// bucket's gradients as the hook sees them: views into `in` in their parameters' shapes.
struct Buffers {
  at::Tensor in, out;
  std::shared_ptr<BucketHook> hook;
  std::vector<at::Tensor> grads;
};

struct Collective {
  std::string name;
  bool split;                     // the vector is n per-rank parts: count must divide by n
  double (*busbw_factor)(int n);  // busbw = algbw x factor
  std::function<Buffers(int64_t count, const Communicator& comm)> allocate;
  void (*fill)(Buffers& b, const Communicator& comm, int64_t iteration);
  void (*run)(Communicator& comm, Buffers& b);
  int64_t (*wrong)(const Buffers& b, const Communicator& comm, int64_t iteration);
};

// Inputs are seeded per (iteration, rank, element): element e of rank r at iteration i holds
// residue(i, e) + r, with residue(i, e) = (7i + 3e) mod 17: small integers, so every sum over
// ranks is exact. What a collective must leave is then want(e) = scale x residue(i, e) +
// offset: one rank's input (input_of) or the sum of n ranks' inputs (sum_of).
struct Seeded {
  float scale = 1;
  float offset = 0;
};
inline Seeded input_of(int rank) {
  return {1.0f, static_cast<float>(rank)};
}
inline Seeded sum_of(int n) {
  return {static_cast<float>(n), static_cast<float>(n) * static_cast<float>(n - 1) / 2};
}

// residue(i, e) in closed form (the loops below read it from a table; tests compare the two).
int64_t seed_residue(int64_t iteration, int64_t e);

// t[k] = want(first + k).
void fill_seeded(at::Tensor& t, int64_t iteration, int64_t first, Seeded want);
// How many t[k] differ from want(first + k).
int64_t count_mismatches(const at::Tensor& t, int64_t iteration, int64_t first, Seeded want);
// The same for a vector of `parts` equal parts, part p holding rank p's input: what gather,
// allgather and scatter lay out.
void fill_rank_parts(at::Tensor& t, int64_t iteration, int parts);
int64_t count_rank_part_mismatches(const at::Tensor& t, int64_t iteration, int parts);

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
Collective iallreduce_collective();
Collective iallreduce_pair_collective();
Collective iallreduce_uneven_collective();
Collective reduce_collective();
Collective broadcast_collective();
Collective gather_collective();
Collective scatter_collective();
Collective allgather_collective();
Collective reduce_scatter_collective();
Collective ring_reduce_collective();
Collective ring_allreduce_collective();
Collective gather_scatter_collective();
Collective reduce_broadcast_collective();
// Every lossy hook of the catalogue (catalogue/methods.h) as <name>_hook: hooks.cpp.
std::vector<Collective> hook_collectives();

// Every collective bench_collectives measures, in report order.
const std::vector<Collective>& collectives();

}  // namespace dtbench::bench
