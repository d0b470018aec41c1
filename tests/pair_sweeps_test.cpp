// What a second operation in flight costs, fitted to the sweep of pairs launched together against
// the nonblocking allreduce's sweep at half their size, through the link's rate.
#include "report/predict/pair_sweeps.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace dtbench {
namespace {

CollectiveRun gloo(const std::string& op, int ranks, int64_t bytes, double chained_s) {
  CollectiveRun c;
  c.op = op;
  c.backend = "gloo";
  c.ranks = ranks;
  c.bytes = bytes;
  c.time_s = 10 * chained_s;  // between barriers: not what Gloo's sweeps are priced by
  c.chained_s = chained_s;
  return c;
}

TEST(PairSweeps, TheShareOfALatencyInFlightFittedToThePairs) {
  // On 4 ranks at 10 MB/s, one operation takes 2 ms and its bytes as a ring's; the pairs as 0.6
  // of a latency waiting for the other's puts them.
  model::Link link;
  link.bytes_per_s = 1e7;
  const auto wire = [&](double bytes) { return 1.5 * bytes / link.bytes_per_s; };
  const auto alone = [&](double bytes) { return 0.002 + wire(bytes); };
  SystemResults s;
  for (int64_t bytes = 1024; bytes <= 1048576; bytes *= 4) {
    s.collectives.push_back(gloo("iallreduce", 4, bytes, alone(bytes)));
    const double half = bytes / 2.0;
    const double pair = model::pair_in_flight_s({alone(half), wire(half), 0}, 0.6);
    s.collectives.push_back(gloo("iallreduce_pair", 4, bytes, pair));
    s.collectives.push_back(gloo("iallreduce_pair", 4, bytes, pair));  // a second repetition
  }
  // A pair whose half the single sweep does not reach is not read (1024 B: 512 B each).
  const InFlightFit fit = in_flight_fit(s, "gloo", 4, link);
  ASSERT_TRUE(fit.found());
  EXPECT_EQ(fit.bytes, (std::vector<double>{4096, 16384, 65536, 262144, 1048576}));
  EXPECT_NEAR(fit.latency_share, 0.6, 1e-9);
  // No pair sweep on these ranks or backend: none fitted, all of a latency waits.
  EXPECT_FALSE(in_flight_fit(s, "gloo", 8, link).found());
  EXPECT_FALSE(in_flight_fit(s, "mpi", 4, link).found());
  EXPECT_EQ(in_flight_fit(s, "gloo", 8, link).latency_share, 1);
}

}  // namespace
}  // namespace dtbench
