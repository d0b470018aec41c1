#pragma once
// Is this bandwidth normal for the network? Per backend and ranks, the library allreduce's bus
// bandwidth at the largest size swept, as a share of the link rate the run states (the emulated
// cluster's shaped rate, in TCP payload), with a verdict; the half-bandwidth size n1/2 (where the
// fitted ring reaches half its peak: latency x rate) instead of an average over the sweep; and
// the bus bandwidth at the sizes the training actually sent (its buckets).
#include <cstdint>
#include <string>
#include <vector>

#include "report/read/results.h"

namespace dtbench {

struct LinkEfficiency {
  std::string backend;
  int ranks = 0;
  int64_t bytes = 0;        // the largest size swept
  double busbw = 0;         // bytes/s, at that size
  double rate = 0;          // the stated rate, bytes/s of payload; 0: none stated
  std::string rate_source;  // "the emulated cluster's 1gbit"
  double n_half_bytes = 0;  // 0: no fitted link
  double bucket_bytes = 0;  // the median bucket a training run of the same backend sent; 0: none
  double bucket_busbw = 0;  // the sweep's busbw there (interpolated)
  double efficiency() const { return rate > 0 ? busbw / rate : 0; }
};

std::vector<LinkEfficiency> link_efficiency(const SystemResults& s);

// One sentence per entry: "gloo allreduce on 4 ranks at 64 MiB: busbw 117.9 MB/s, 96% of the
// emulated cluster's 1gbit (119.6 MB/s of payload): normal (at least 70%: common/links.h's one
// rule); n1/2 = 412 KiB; at the buckets the training sent (median 25.0 MB) 112.0 MB/s (92%)".
std::string link_efficiency_text(const LinkEfficiency& e);

}  // namespace dtbench
