// ring_reduce: the course's hand-written ring reduce. The running sum travels once around the
// ring, 1 -> 2 -> ... -> n-1 -> 0, each rank adding its tensor before passing it on, so rank 0
// ends with the total; the total then travels 0 -> 1 -> ... -> n-1. Every rank sends S and
// receives S in each half, but the 2(n-1) hops happen one after another (no pipelining), so
// the time grows linearly with n. ring_allreduce is the bandwidth-optimal ring.
#include <ATen/ATen.h>

#include "sync/strategies.h"

namespace dtbench {

void ring_reduce_sum(at::Tensor& t, Communicator& comm) {
  const int n = comm.size(), r = comm.rank();
  if (n == 1 || t.numel() == 0) return;
  const int left = (r + n - 1) % n, right = (r + 1) % n;
  const int first = 1 % n, last = 0;  // where the running sum starts and ends
  at::Tensor flat = t.view({-1});

  if (r != first) {
    at::Tensor partial = at::empty_like(flat);
    comm.irecv(partial, left, /*tag=*/1)->wait();
    flat.add_(partial);
  }
  if (r != last) comm.isend(flat, right, /*tag=*/1)->wait();

  if (r != 0) comm.irecv(flat, left, /*tag=*/2)->wait();
  if (right != 0) comm.isend(flat, right, /*tag=*/2)->wait();
}

}  // namespace dtbench
