// iallreduce: the nonblocking allreduce the overlapping engines launch during backward
// (bucketed's buckets), waited for as they wait while backward runs: the caller sleeps and
// looks once a millisecond, so the machine's CPU time (machine_cpu_s) is the operation's own
// work (for MPI, the communicator's progress thread), not a caller spinning in MPI_Wait, and
// the caller's few wake-ups add little to it. Its time includes up to a millisecond of that
// sleep. Factor 2(n-1)/n, as for the blocking allreduce.
#include <chrono>
#include <thread>

#include "collectives/collective.h"

namespace dtbench::bench {

Collective iallreduce_collective() {
  return in_place_sum(
      "iallreduce", factor_allreduce,
      [](Communicator& c, Buffers& b) {
        std::unique_ptr<Request> request = c.iallreduce(b.in);
        while (!request->test()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        request->wait();  // done: raises what the operation failed with, if it did
      },
      /*root_only=*/false);
}

}  // namespace dtbench::bench
