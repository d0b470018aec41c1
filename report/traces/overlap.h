#pragma once
// How much of a run's communication was hidden behind its compute, measured from its trace
// (docs/traces.md): per rank and traced iteration, the union of its communication intervals
// (the blocking operations' spans and the nonblocking ones' from launch to completion, on every
// thread) and how much of it falls inside the training thread's compute phases (data, forward,
// backward up to its last gradient's arrival, optimizer: everything but the exposed `sync`, and
// the wait that may end backward, as the DDP engine's for its buckets); the rest is exposed.
#include <nlohmann/json.hpp>

#include <string>

namespace dtbench {

struct OverlapShare {
  int iterations = 0;   // rank-iterations measured
  double comm_s = 0;    // communication per rank and iteration (the union of its intervals)
  double hidden_s = 0;  // of which inside compute
  double exposed() const { return comm_s - hidden_s; }
  double hidden_share() const { return comm_s > 0 ? hidden_s / comm_s : 0; }
};

// `events` are a trace's traceEvents.
OverlapShare overlap_of(const nlohmann::json& events);

// "communication 0.866 s per iteration and rank, 93% hidden behind compute, 0.060 s exposed", or
// for a trace without communication what that means.
std::string overlap_share_text(const OverlapShare& o);

}  // namespace dtbench
