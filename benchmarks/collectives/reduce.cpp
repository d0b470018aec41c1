// reduce: rank 0 ends with the sum of every rank's vector. busbw factor 1: the root's link
// carries at least one vector's worth.
#include "collectives/collective.h"

namespace dtbench::bench {

Collective reduce_collective() {
  return in_place_sum(
      "reduce", factor_one, [](Communicator& c, Buffers& b) { c.reduce(b.in, 0); },
      /*root_only=*/true);
}

}  // namespace dtbench::bench
