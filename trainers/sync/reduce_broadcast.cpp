// reduce_broadcast: reduce(sum) to rank 0, then broadcast the sum from rank 0. The backend
// chooses the algorithms (trees or rings), so the bytes on the wire are backend-dependent.
#include "sync/strategies.h"

namespace dtbench {

void reduce_broadcast_sum(at::Tensor& t, Communicator& comm) {
  at::Tensor flat = t.view({-1});
  comm.reduce(flat, /*root=*/0);
  comm.broadcast(flat, /*root=*/0);
}

}  // namespace dtbench
