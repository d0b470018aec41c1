// reduce_scatter: rank r ends with part r of the sum of every rank's vector. busbw factor
// (n-1)/n. Over Gloo it is emulated by an allreduce (docs/communicators.md), and is measured
// as such.
#include "collectives/collective.h"

namespace dtbench::bench {

Collective reduce_scatter_collective() {
  return {"reduce_scatter",
          /*split=*/true,
          factor_parts,
          [](int64_t count, const Communicator& c) {
            return Buffers{at::empty({count}), at::empty({count / c.size()}), {}, {}};
          },
          [](Buffers& b, const Communicator& c, int64_t i) {
            fill_seeded(b.in, i, 0, input_of(c.rank()));
            b.out.fill_(-1);
          },
          [](Communicator& c, Buffers& b) { c.reduce_scatter(b.in, b.out); },
          [](const Buffers& b, const Communicator& c, int64_t i) {
            return count_mismatches(b.out, i, c.rank() * b.out.numel(), sum_of(c.size()));
          }};
}

}  // namespace dtbench::bench
