// reduce_broadcast: the composite of the reduce_broadcast strategy, a reduce to rank 0 and a
// broadcast of the sum (sync/reduce_broadcast.cpp), made one after the other as training makes
// them. Through a token bucket the broadcast finds rank 0's way out rested while the reduce
// filled its way in, which two sweeps made apart do not see. Factor 2(n-1)/n as an allreduce.
#include "collectives/collective.h"
#include "sync/strategies.h"

namespace dtbench::bench {

Collective reduce_broadcast_collective() {
  return in_place_sum(
      "reduce_broadcast", factor_allreduce,
      [](Communicator& c, Buffers& b) { reduce_broadcast_sum(b.in, c); },
      /*root_only=*/false);
}

}  // namespace dtbench::bench
