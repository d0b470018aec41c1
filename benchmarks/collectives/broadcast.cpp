// broadcast: every rank ends with rank 0's vector. busbw factor 1.
#include "collectives/collective.h"

namespace dtbench::bench {

Collective broadcast_collective() {
  return {"broadcast",
          /*split=*/false,
          factor_one,
          [](int64_t count, const Communicator&) {
            return Buffers{at::empty({count}), {}, {}, {}};
          },
          [](Buffers& b, const Communicator& c, int64_t i) {
            if (c.rank() == 0) {
              fill_seeded(b.in, i, 0, input_of(0));
            } else {
              b.in.fill_(-1);  // anything but the answer
            }
          },
          [](Communicator& c, Buffers& b) { c.broadcast(b.in, 0); },
          [](const Buffers& b, const Communicator&, int64_t i) {
            return count_mismatches(b.in, i, 0, input_of(0));
          }};
}

}  // namespace dtbench::bench
