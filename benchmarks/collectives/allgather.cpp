// allgather: every rank ends with every rank's part, in rank order. busbw factor (n-1)/n.
#include "collectives/collective.h"

namespace dtbench::bench {

Collective allgather_collective() {
  return {"allgather",
          /*split=*/true,
          factor_parts,
          [](int64_t count, const Communicator& c) {
            return Buffers{at::empty({count / c.size()}), at::empty({count})};
          },
          [](Buffers& b, const Communicator& c, int64_t i) {
            fill_seeded(b.in, i, c.rank(), c.rank() * b.in.numel());
            b.out.fill_(-1);
          },
          [](Communicator& c, Buffers& b) { c.allgather(b.in, b.out); },
          [](const Buffers& b, const Communicator&, int64_t i) {
            const int64_t part = b.in.numel();
            return count_mismatches(
                b.out, 0, [&](int64_t e) { return seeded(i, static_cast<int>(e / part), e); });
          }};
}

}  // namespace dtbench::bench
