#pragma once
// The emulated cluster shapes each host's way out and way in with a token bucket (tc tbf): a
// bucket that rests refills at the link's rate up to burst_bytes, and what it holds goes at
// once. Link::time charges a step with what its buckets refill during its own latency, which is
// all they get when every link sends in every step (a ring allreduce). Where the links take
// turns (a chain's hops one after another, a parent's sends to its children, a root taking its
// children's sums), each bucket also refills while the others send, and a message of up to
// burst_bytes can find it full. Buckets follows every host's two buckets through the messages
// of calls made one after another.
#include <functional>
#include <vector>

#include "model/cost_model.h"

namespace dtbench::model {

class Buckets {
 public:
  // n hosts, every bucket full; or, given `held`, holding that many bytes (at most the depth).
  Buckets(int n, const Link& link, double held = -1);
  // A message of `bytes` from rank `from` to rank `to`, sent at `start`: when it has arrived.
  // After the latency it takes what both buckets hold at once, the rest at the rate.
  double send(int from, int to, double bytes, double start);

 private:
  struct Level {
    double bytes = 0;  // held at `at`
    double at = 0;
  };
  double held(const Level& l, double t) const;
  Link link_;
  std::vector<Level> out_, in_;
};

// A call (`call(buckets, start)` returns when its last message arrived) made back to back, as a
// sweep or a training step makes it, until the buckets settle: the time of the last call.
double settled_call_s(int n, const Link& link,
                      const std::function<double(Buckets&, double start)>& call);

}  // namespace dtbench::model
