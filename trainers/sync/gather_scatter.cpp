// gather_scatter: the course's first method. Every rank's tensor is gathered on rank 0, which
// sums them and scatters a copy of the sum to every rank. Rank 0 receives and sends (n-1)S;
// the others send S and receive S; rank 0's link carries everything, so it is the bottleneck.
#include <ATen/ATen.h>

#include "sync/strategies.h"

namespace dtbench {

void gather_scatter_sum(at::Tensor& t, Communicator& comm) {
  const int n = comm.size(), root = 0;
  at::Tensor flat = t.view({-1});
  const int64_t count = flat.numel();
  const bool is_root = comm.rank() == root;
  // Rank 0: the n gathered rows, then n copies of their sum, in one reused buffer.
  at::Tensor buffer = is_root ? reused_buffer(2 * n * count, flat.options()) : at::Tensor();
  at::Tensor gathered = is_root ? buffer.narrow(0, 0, n * count) : at::Tensor();
  comm.gather(flat, gathered, root);
  at::Tensor copies;
  if (is_root) {
    copies = buffer.narrow(0, n * count, n * count);
    at::Tensor rows = copies.view({n, count});
    at::Tensor sum = rows[0];
    at::sum_out(sum, gathered.view({n, count}), /*dim=*/{0});
    for (int r = 1; r < n; ++r) rows[r].copy_(sum);
  }
  comm.scatter(copies, flat, root);
}

}  // namespace dtbench
