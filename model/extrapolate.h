#pragma once
// The model's inputs on more ranks than were measured (docs/model.md, "Past the ranks it was
// fitted on"): a link fitted to an algorithm's measured times on several rank counts at once,
// and a rank's compute worked out from the compute measured on other rank counts.
#include <functional>
#include <vector>

#include "model/cost_model.h"
#include "model/iteration_model.h"

namespace dtbench::model {

// One measured time of a collective: `bytes` per rank over `ranks` ranks, each of whose
// machines' cores carried `share` ranks' threads (ComputeAt).
struct SweepPoint {
  int ranks = 0;
  double bytes = 0, seconds = 0;
  double share = 1;
};

// An algorithm's time on a link, as every formula of cost_model.h is: a x L(n) + V(n, S) / B.
using AlgorithmTime = std::function<double(int ranks, double bytes, const Link& link)>;

// A link fitted to an algorithm's measured times: its rate, and a latency per step that grows
// with the ranks that share each core (each step waits for the next rank to be scheduled):
// latency + latency_per_share x (share - 1).
struct FittedLink {
  bool found = false;
  Link link;  // at share 1
  double latency_per_share_s = 0;
  Link at(double share) const {
    return {link.latency_s + latency_per_share_s * (share - 1), link.bytes_per_s, link.burst_bytes};
  }
};

// The link under which `time` matches what was measured on several rank counts, as Hockney's
// parameters are measured: the latency per step, and its growth with the share, from the
// smallest messages (`small`: least squares on relative errors; a term that comes out
// negative is left out and the rest refitted; with one share among them, no growth); then the
// rate from the sizes that matter (`sent`: least squares on seconds, or on relative errors so
// that every size counts alike, with the latency fitted and the link's token bucket of
// burst_bytes, 0 for none). found = false without a positive rate.
FittedLink fit_link_across(const std::vector<SweepPoint>& small,
                           const std::vector<SweepPoint>& sent, const AlgorithmTime& time,
                           double burst_bytes = 0, bool relative = false);

// The compute measured on some rank count: each rank's batch, the share of a core its threads
// had (its machine's ranks x threads / cores, at least 1: 2 when 4 one-thread ranks share 2
// cores), and the profile.
struct ComputeAt {
  double share = 1, batch = 0;
  ComputeProfile profile;
};

// A rank's compute at `share` and `batch` from the compute measured at others: each phase, and
// the slowest rank's lag, the p95 iteration's spread and the slowest rank's excess, as share x (a +
// b x batch), a fixed cost per rank and a cost per sample both slowed by the ranks that share a
// core, fitted through the measurements (never below zero); the gradients' ready times the same
// fractions of backward as in the last measurement, the tensors its. std::invalid_argument unless 2
// measurements tell a from b.
ComputeProfile compute_at(const std::vector<ComputeAt>& measured, double share, double batch);

}  // namespace dtbench::model
