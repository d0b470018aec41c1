#pragma once
// Each rank's own iteration and phase times over the timed window (iterations 1..39), as
// percentiles, and how far the ranks are apart: the record keeps every rank's raw samples
// (RankUsage::iteration_s, phase_s), the iteration time of the record being the slowest rank's.
#include <array>
#include <string>
#include <vector>

#include "common/phase_timer.h"
#include "record/record.h"

namespace dtbench {

struct Percentiles {
  double p50 = 0, p95 = 0, p99 = 0;
};

// Linear interpolation between order statistics (stats.h's percentile); zeros for no values.
Percentiles percentiles_of(const std::vector<double>& values);

struct RankStats {
  int rank = 0;
  std::string host;
  Percentiles iteration;
  std::array<Percentiles, kPhaseCount> phase{};  // zeros where a dtbench.run/1 record has none
  Percentiles compute;                           // data + forward + backward, per iteration
  bool has_phases = false;
};

struct RankSpread {
  std::vector<RankStats> ranks;    // in rank order; empty without per-rank samples
  int slowest = -1, fastest = -1;  // by their iteration p50
  double spread = 0;               // slowest p50 / fastest p50 - 1
  // From the phases (every rank keeps the slowest one's pace, so the iteration times hardly
  // differ; the compute does): the rank whose compute p50 is longest, by how much over the
  // others' median, and how much longer the others' exposed sync is than its own (their wait
  // for it; medians). -1 without phases or with one rank.
  int behind = -1;
  double behind_by_s = 0, others_wait_s = 0;
};

RankSpread rank_spread(const RunRecord& record);

// "ranks' p50 0.412-0.431 s (+4.6%), slowest rank 2 (n2), p99 0.480 s; rank 2 (n2) computes
// longest, +0.049 s over the others' median, and they wait 0.048 s for it in sync"; "" without
// samples.
std::string rank_spread_text(const RankSpread& s);

// On stdout: a line per rank with its p50/p95/p99 of the iteration and of each phase over the
// timed window, then how far the ranks are apart (nothing without per-rank samples).
void print_rank_table(const RunRecord& record);

}  // namespace dtbench
