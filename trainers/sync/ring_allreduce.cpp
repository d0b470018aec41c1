// ring_allreduce: the bandwidth-optimal ring (Patarasuk & Yuan), written on isend/irecv.
// The tensor is cut into n chunks. Reduce-scatter: in n-1 steps each rank sends one chunk to
// its right neighbour while receiving another from its left and adding it in; afterwards rank
// r holds the complete sum of chunk (r+1) mod n. Allgather: n-1 more steps pass the complete
// chunks around until every rank has all of them. Each rank sends and receives 2(n-1)/n * S,
// and every link is busy in both directions at every step.
#include <ATen/ATen.h>

#include <algorithm>

#include "sync/strategies.h"

namespace dtbench {
namespace {

// Chunk c of n over numel elements: sizes differ by at most one; some may be empty.
struct Chunks {
  int64_t numel;
  int n;
  int64_t offset(int c) const { return c * (numel / n) + std::min<int64_t>(c, numel % n); }
  int64_t length(int c) const { return numel / n + (c < numel % n ? 1 : 0); }
};

// Sends `out` to the right neighbour while receiving `into` from the left one; an empty chunk
// is neither sent nor received (both sides know the sizes).
void exchange(Communicator& comm, const at::Tensor& out, at::Tensor into, int right, int left,
              int tag) {
  std::unique_ptr<Request> receive, send;
  if (into.numel() > 0) receive = comm.irecv(into, left, tag);
  if (out.numel() > 0) send = comm.isend(out, right, tag);
  if (receive) receive->wait();
  if (send) send->wait();
}

}  // namespace

void ring_allreduce_sum(at::Tensor& t, Communicator& comm) {
  const int n = comm.size(), r = comm.rank();
  if (n == 1 || t.numel() == 0) return;
  const int left = (r + n - 1) % n, right = (r + 1) % n;
  at::Tensor flat = t.view({-1});
  Chunks chunks{flat.numel(), n};
  auto chunk = [&](int c) { return flat.narrow(0, chunks.offset(c), chunks.length(c)); };
  at::Tensor incoming = at::empty({chunks.length(0)}, flat.options());

  for (int step = 0; step < n - 1; ++step) {
    int send = (r - step + n) % n, receive = (r - step - 1 + n) % n;
    at::Tensor into = incoming.narrow(0, 0, chunks.length(receive));
    exchange(comm, chunk(send), into, right, left, step);
    chunk(receive).add_(into);
  }
  for (int step = 0; step < n - 1; ++step) {
    int send = (r + 1 - step + n) % n, receive = (r - step + n) % n;
    exchange(comm, chunk(send), chunk(receive), right, left, n + step);
  }
}

}  // namespace dtbench
