// allreduce: every rank ends with the sum of every rank's vector (the backend's own call).
// busbw factor 2(n-1)/n: a ring moves that share of the vector through every link.
#include "collectives/collective.h"

namespace dtbench::bench {

Collective allreduce_collective() {
  return in_place_sum(
      "allreduce", factor_allreduce, [](Communicator& c, Buffers& b) { c.allreduce(b.in); },
      /*root_only=*/false);
}

}  // namespace dtbench::bench
