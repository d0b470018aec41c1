// ring_reduce: dtbench's hand-written chain reduce round the ring plus the pass-back
// (sync/ring_reduce.cpp). Counted like allreduce, which it computes; factor 2(n-1)/n.
#include "collectives/collective.h"
#include "sync/strategies.h"

namespace dtbench::bench {

Collective ring_reduce_collective() {
  return in_place_sum(
      "ring_reduce", factor_allreduce,
      [](Communicator& c, Buffers& b) { ring_reduce_sum(b.in, c); },
      /*root_only=*/false);
}

}  // namespace dtbench::bench
