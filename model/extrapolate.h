#pragma once
// The model's inputs on more ranks than were measured (docs/model.md, "Past the ranks it was
// fitted on"): a link fitted to an algorithm's measured times on several rank counts at once,
// and a rank's compute worked out from the compute measured on other rank counts.
#include <algorithm>
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

// How a rank waits for its peers, which decides how a step's latency grows with the ranks that
// share a core (each step waits for the next rank to be scheduled). spin: a waiting rank polls
// and stays runnable (Open MPI, even yielding when idle), so a step waits behind every other
// rank on its core: the wait grows with each rank more on a core. sleep: a waiting rank blocks
// (Gloo's threads), leaving the core to the ranks with work: once the ranks outnumber the cores
// a step waits for its rank to be scheduled, a term counted once; how it grows past that, only
// sweeps at two shares or more past one measure.
enum class Waits { spin, sleep };

// The ranks more on a core that a step's wait grows with, at `share` ranks' threads per core.
inline double share_growth(double share, Waits waits) {
  const double more = std::max(0.0, share - 1);
  return waits == Waits::spin ? more : std::min(more, 1.0);
}

// A link fitted to an algorithm's measured times: its rate, and a latency per step that grows
// with the ranks that share each core: latency + latency_per_share x share_growth(share, waits),
// and for sleeping ranks, past 2 a core, latency_past_two_s for each rank more on a core.
struct FittedLink {
  bool found = false;
  Link link;  // at share 1
  double latency_per_share_s = 0;
  double latency_past_two_s = 0;  // sleep: measured at two shares or more past one; else 0
  Waits waits = Waits::spin;
  Link at(double share) const {
    const double past_two = waits == Waits::sleep ? std::max(0.0, share - 2) : 0;
    return {link.latency_s + latency_per_share_s * share_growth(share, waits) +
                latency_past_two_s * past_two,
            link.bytes_per_s, link.burst_bytes};
  }
};

// The link under which `time` matches what was measured on several rank counts, as Hockney's
// parameters are measured: the latency per step, and its growth with the share, from the
// smallest messages (`small`: least squares on relative errors; a term that comes out
// negative is left out and the rest refitted, but sleeping ranks' growth may be negative where
// the latency past share 1 stays positive; with one share among them, no growth; sleeping
// ranks' growth past two a core where the points hold two shares or more past one and it comes
// out positive); then the
// rate from the sizes that matter (`sent`: least squares on seconds, or on relative errors so
// that every size counts alike, with the latency fitted and the link's token bucket of
// burst_bytes, 0 for none), the latency's growth as `waits` has it. found = false without a
// positive rate.
FittedLink fit_link_across(const std::vector<SweepPoint>& small,
                           const std::vector<SweepPoint>& sent, const AlgorithmTime& time,
                           double burst_bytes = 0, bool relative = false,
                           Waits waits = Waits::spin);

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
