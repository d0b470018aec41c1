// gather: rank 0 ends with every rank's part, in rank order. busbw factor (n-1)/n: the root's
// link carries all parts but its own.
#include "collectives/collective.h"

namespace dtbench::bench {

Collective gather_collective() {
  return {"gather",
          /*split=*/true,
          factor_parts,
          [](int64_t count, const Communicator& c) {
            return Buffers{at::empty({count / c.size()}), at::empty({c.rank() == 0 ? count : 0})};
          },
          [](Buffers& b, const Communicator& c, int64_t i) {
            fill_seeded(b.in, i, c.rank(), c.rank() * b.in.numel());
            b.out.fill_(-1);
          },
          [](Communicator& c, Buffers& b) { c.gather(b.in, b.out, 0); },
          [](const Buffers& b, const Communicator& c, int64_t i) -> int64_t {
            if (c.rank() != 0) return 0;
            const int64_t part = b.in.numel();
            return count_mismatches(
                b.out, 0, [&](int64_t e) { return seeded(i, static_cast<int>(e / part), e); });
          }};
}

}  // namespace dtbench::bench
