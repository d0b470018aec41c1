// ring_allreduce: dtbench's hand-written reduce-scatter + allgather ring on isend/irecv
// (sync/ring_allreduce.cpp). Factor 2(n-1)/n, as for the backend's allreduce.
#include "collectives/collective.h"
#include "sync/strategies.h"

namespace dtbench::bench {

Collective ring_allreduce_collective() {
  return in_place_sum(
      "ring_allreduce", factor_allreduce,
      [](Communicator& c, Buffers& b) { ring_allreduce_sum(b.in, c); },
      /*root_only=*/false);
}

}  // namespace dtbench::bench
