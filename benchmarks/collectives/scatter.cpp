// scatter: rank r ends with part r of rank 0's vector. busbw factor (n-1)/n.
#include "collectives/collective.h"

namespace dtbench::bench {

Collective scatter_collective() {
  return {"scatter",
          /*split=*/true,
          factor_parts,
          [](int64_t count, const Communicator& c) {
            return Buffers{
                at::empty({c.rank() == 0 ? count : 0}), at::empty({count / c.size()}), {}, {}};
          },
          [](Buffers& b, const Communicator& c, int64_t i) {
            fill_rank_parts(b.in, i, c.size());  // part r: what rank r would have as input
            b.out.fill_(-1);
          },
          [](Communicator& c, Buffers& b) { c.scatter(b.in, b.out, 0); },
          [](const Buffers& b, const Communicator& c, int64_t i) {
            return count_mismatches(b.out, i, c.rank() * b.out.numel(), input_of(c.rank()));
          }};
}

}  // namespace dtbench::bench
