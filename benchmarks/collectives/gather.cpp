// gather: rank 0 ends with every rank's part, in rank order. busbw factor (n-1)/n: the root's
// link carries all parts but its own.
#include "collectives/collective.h"

namespace dtbench::bench {

Collective gather_collective() {
  return {"gather",
          /*split=*/true,
          factor_parts,
          [](int64_t count, const Communicator& c) {
            return Buffers{
                at::empty({count / c.size()}), at::empty({c.rank() == 0 ? count : 0}), {}, {}};
          },
          [](Buffers& b, const Communicator& c, int64_t i) {
            fill_seeded(b.in, i, c.rank() * b.in.numel(), input_of(c.rank()));
            b.out.fill_(-1);
          },
          [](Communicator& c, Buffers& b) { c.gather(b.in, b.out, 0); },
          [](const Buffers& b, const Communicator& c, int64_t i) -> int64_t {
            return c.rank() == 0 ? count_rank_part_mismatches(b.out, i, c.size()) : 0;
          }};
}

}  // namespace dtbench::bench
