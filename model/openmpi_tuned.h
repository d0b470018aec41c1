#pragma once
// What Open MPI's reduce and broadcast cost where no sweep on the rank count was measured (the
// extrapolation, the what-if): which algorithm its tuned component's fixed rules choose for a
// message of S bytes on n ranks (Open MPI 4.1's coll/tuned, the Debian 12 stack), and that
// algorithm's time on links like cost_model.h's. The fixed rules run every algorithm on the
// whole message, unsegmented, so each is its tree: a rank sends to its children one after the
// other (broadcast), or takes its children's partial sums one after the other (reduce), each
// message a link's time for S, through token buckets that refill while a link rests
// (model/token_buckets.h). On 2, 4 and 8 hosts of the emulated cluster at 100 Mbit/s the
// measured broadcasts of 64 KiB to 1 MiB took 1, 3 and 7 messages' time (linear, then chain or
// linear) and the reduces 1, 2-3 and 3 (docs/model.md).
#include "model/cost_model.h"

namespace dtbench::model {

// The algorithms of coll/tuned's broadcast and reduce, numbered as its MCA parameters
// (coll_tuned_bcast_algorithm, coll_tuned_reduce_algorithm) number them.
enum class TunedBcast {
  linear = 1,
  chain = 2,
  pipeline = 3,
  split_binary = 4,
  binary = 5,
  binomial = 6,
  knomial = 7,
  scatter_allgather = 8,
  scatter_allgather_ring = 9,
};
enum class TunedReduce {
  linear = 1,
  chain = 2,
  pipeline = 3,
  binary = 4,
  binomial = 5,
  in_order_binary = 6,
  rabenseifner = 7,
};

// coll/tuned's allgather algorithms, numbered as coll_tuned_allgather_algorithm numbers them.
enum class TunedAllgather {
  linear = 1,
  bruck = 2,
  recursive_doubling = 3,
  ring = 4,
  neighbor = 5,
  two_proc = 6,
};

// The fixed rules' choice for S bytes over n ranks (a commutative sum for reduce; for allgather
// S is each rank's part).
TunedBcast tuned_bcast(int n, double bytes);
TunedReduce tuned_reduce(int n, double bytes);
TunedAllgather tuned_allgather(int n, double bytes);

// The time of the rules' choice on n ranks whose every link is `link`.
double openmpi_bcast_s(int n, double bytes, const Link& link);
double openmpi_reduce_s(int n, double bytes, const Link& link);
// A reduce to rank 0, then the broadcast of its sum, each the rules' choice, one after the other
// as the reduce_broadcast strategy calls them: through token buckets, the broadcast goes out of
// ways the reduce left resting (a reduce fills rank 0's way in, a broadcast empties its way out).
double openmpi_reduce_bcast_s(int n, double bytes, const Link& link);
// One call of each on buckets followed from call to call (model/token_buckets.h), from
// `start`: when it ends.
double openmpi_bcast_call(int n, double bytes, const Link& link, Buckets& b, double start);
double openmpi_reduce_call(int n, double bytes, const Link& link, Buckets& b, double start);

}  // namespace dtbench::model
