// iallreduce_pair: the vector's two halves, each a nonblocking allreduce, both launched before
// either is waited for, as bucketed launches two buckets that are ready together; waited for as
// iallreduce waits (a look once a millisecond). Against iallreduce of one half, it shows what a
// second operation in flight costs on these links: where Gloo's process group has two threads,
// both go at once. iallreduce_uneven: the same with the vector's first eighth and the rest, as a
// small bucket goes beside a large one (LeNet-5's: 44 KB and 203 KB): where the small one's
// latency and the large one's bytes share the time. Factor 2(n-1)/n, as for the allreduce.
#include <array>
#include <chrono>
#include <memory>
#include <thread>

#include "collectives/collective.h"

namespace dtbench::bench {
namespace {

// The first numel / parts elements and the rest, launched together, then waited for.
template <int parts>
void launch_two(Communicator& c, Buffers& b) {
  const int64_t first = b.in.numel() / parts;
  std::array<at::Tensor, 2> pieces = {b.in.narrow(0, 0, first),
                                      b.in.narrow(0, first, b.in.numel() - first)};
  std::array<std::unique_ptr<Request>, 2> requests;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (pieces[i].numel() > 0) requests[i] = c.iallreduce(pieces[i]);
  }
  for (auto& request : requests) {
    if (!request) continue;
    while (!request->test()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    request->wait();  // done: raises what the operation failed with, if it did
  }
}

}  // namespace

Collective iallreduce_pair_collective() {
  return in_place_sum("iallreduce_pair", factor_allreduce, launch_two<2>, /*root_only=*/false);
}

Collective iallreduce_uneven_collective() {
  return in_place_sum("iallreduce_uneven", factor_allreduce, launch_two<8>, /*root_only=*/false);
}

}  // namespace dtbench::bench
