#include "train/start_probe.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>

namespace dtbench {

namespace {

// Beside every strategy's tags: the probe runs on the control communicator, but a tag of its
// own keeps it apart from anything else that might.
constexpr int kProbeTag = 7919;

using Clock = std::chrono::steady_clock;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

void send(Communicator& comm, const at::Tensor& t, int peer) {
  comm.isend(t, peer, kProbeTag)->wait();
}
void receive(Communicator& comm, at::Tensor& t, int peer) {
  comm.irecv(t, peer, kProbeTag)->wait();
}

}  // namespace

std::vector<ClockOffset> measure_clock_offsets(Communicator& comm, int rounds) {
  const int n = comm.size();
  // Per rank: offset and half round trip, in nanoseconds (exact in int64 whatever the clocks'
  // epochs), filled on rank 0 and then broadcast.
  at::Tensor found = at::zeros({2 * n}, at::kLong);
  at::Tensor stamp = at::zeros({1}, at::kLong);
  if (comm.rank() == 0) {
    auto* out = found.data_ptr<int64_t>();
    for (int peer = 1; peer < n; ++peer) {
      int64_t best = std::numeric_limits<int64_t>::max();
      for (int round = 0; round < rounds; ++round) {
        const int64_t sent = now_ns();
        send(comm, stamp, peer);
        receive(comm, stamp, peer);
        const int64_t back = now_ns();
        if (back - sent < best) {
          best = back - sent;
          out[peer] = stamp.item<int64_t>() - (sent + back) / 2;
          out[n + peer] = (best + 1) / 2;
        }
      }
    }
  } else {
    for (int round = 0; round < rounds; ++round) {
      receive(comm, stamp, 0);
      stamp.fill_(now_ns());
      send(comm, stamp, 0);
    }
  }
  comm.broadcast(found, 0);
  std::vector<ClockOffset> offsets(n);
  const auto* in = found.data_ptr<int64_t>();
  for (int r = 0; r < n; ++r) {
    offsets[r].offset_s = static_cast<double>(in[r]) * 1e-9;
    offsets[r].uncertainty_s = static_cast<double>(in[n + r]) * 1e-9;
  }
  return offsets;
}

Clock::time_point common_origin(Communicator& comm, const std::vector<ClockOffset>& offsets) {
  at::Tensor origin = at::full({1}, now_ns(), at::kLong);
  comm.broadcast(origin, 0);  // rank 0's reading, taken before anyone returns from this
  const auto offset = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(offsets.at(comm.rank()).offset_s));
  return Clock::time_point(std::chrono::nanoseconds(origin.item<int64_t>())) + offset;
}

std::vector<LinkSample> measure_links(Communicator& comm, const std::vector<std::string>& hosts,
                                      int64_t bytes, int rounds) {
  const int n = comm.size();
  std::vector<LinkSample> pairs;
  for (int a = 0; a < (n == 2 ? 1 : n); ++a) {
    const int b = (a + 1) % n;
    if (a != b && hosts.at(a) != hosts.at(b)) pairs.push_back({std::min(a, b), std::max(a, b)});
  }
  if (pairs.empty()) return pairs;
  at::Tensor payload = at::zeros({bytes}, at::kByte);
  std::vector<double> seconds(pairs.size(), 0.0);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const LinkSample& p = pairs[i];
    comm.barrier();  // one pair at a time: no two share a host's link or CPU
    if (comm.rank() == p.a) {
      double best = std::numeric_limits<double>::infinity();
      for (int round = 0; round < rounds; ++round) {
        const auto begin = Clock::now();
        send(comm, payload, p.b);
        receive(comm, payload, p.b);
        best = std::min(best, std::chrono::duration<double>(Clock::now() - begin).count());
      }
      seconds[i] = best;
    } else if (comm.rank() == p.b) {
      for (int round = 0; round < rounds; ++round) {
        receive(comm, payload, p.a);
        send(comm, payload, p.a);
      }
    }
  }
  max_over_ranks(comm, seconds);  // each pair's time was known to its lower rank only
  for (size_t i = 0; i < pairs.size(); ++i) {
    pairs[i].bytes = bytes;
    pairs[i].seconds = seconds[i];
  }
  return pairs;
}

}  // namespace dtbench
