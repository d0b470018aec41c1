// allgather: every rank ends with every rank's part, in rank order. busbw factor (n-1)/n.
#include "collectives/collective.h"

namespace dtbench::bench {

Collective allgather_collective() {
  return {"allgather",
          /*split=*/true,
          factor_parts,
          [](int64_t count, const Communicator& c) {
            return Buffers{at::empty({count / c.size()}), at::empty({count}), {}, {}};
          },
          [](Buffers& b, const Communicator& c, int64_t i) {
            fill_seeded(b.in, i, c.rank() * b.in.numel(), input_of(c.rank()));
            b.out.fill_(-1);
          },
          [](Communicator& c, Buffers& b) { c.allgather(b.in, b.out); },
          [](const Buffers& b, const Communicator& c, int64_t i) {
            return count_rank_part_mismatches(b.out, i, c.size());
          }};
}

}  // namespace dtbench::bench
