// gather_scatter: the composite the gather_scatter strategy uses (gather to rank 0, sum there,
// scatter the sum back; sync/gather_scatter.cpp). Factor 2(n-1)/n as an allreduce, though
// rank 0's link carries 2(n-1) vectors, which is why it falls behind.
#include "collectives/collective.h"
#include "sync/strategies.h"

namespace dtbench::bench {

Collective gather_scatter_collective() {
  return in_place_sum(
      "gather_scatter", factor_allreduce,
      [](Communicator& c, Buffers& b) { gather_scatter_sum(b.in, c); },
      /*root_only=*/false);
}

}  // namespace dtbench::bench
