// allreduce: the backend's own allreduce(sum) per tensor (a ring or Rabenseifner's algorithm
// for large messages: about 2(n-1)S/n per rank each way).
#include "sync/strategies.h"

namespace dtbench {

void allreduce_sum(at::Tensor& t, Communicator& comm) {
  at::Tensor flat = t.view({-1});
  comm.allreduce(flat);
}

}  // namespace dtbench
