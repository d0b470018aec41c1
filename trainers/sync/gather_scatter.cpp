// gather_scatter: the course's first method. Every rank's tensor is gathered on rank 0, which
// sums them and scatters a copy of the sum to every rank. Rank 0 receives and sends (n-1)S;
// the others send S and receive S; rank 0's link carries everything, so it is the bottleneck.
#include <ATen/ATen.h>

#include "sync/strategies.h"

namespace dtbench {

void gather_scatter_sum(at::Tensor& t, Communicator& comm) {
  const int n = comm.size(), root = 0;
  at::Tensor flat = t.view({-1});
  at::Tensor gathered =
      comm.rank() == root ? at::empty({n * flat.numel()}, flat.options()) : at::Tensor();
  comm.gather(flat, gathered, root);
  at::Tensor copies;
  if (comm.rank() == root) copies = gathered.view({n, -1}).sum(0).repeat({n});
  comm.scatter(copies, flat, root);
}

}  // namespace dtbench
