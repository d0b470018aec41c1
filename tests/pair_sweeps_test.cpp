// What a second operation in flight costs, fitted to the sweep of pairs launched together against
// the nonblocking allreduce's sweep at half their size, through the link's rate.
#include "report/predict/pair_sweeps.h"

#include <gtest/gtest.h>

#include <cmath>
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

TEST(PairSweeps, TheSharesOfALatencyInFlightFittedToThePairs) {
  // On 4 ranks at 10 MB/s, one operation takes 2 ms and its bytes as a ring's; the pairs as 0.6
  // of a latency waiting for the other's and 0.4 of it going before its bytes put them.
  model::Link link;
  link.bytes_per_s = 1e7;
  const auto wire = [&](double bytes) { return 1.5 * bytes / link.bytes_per_s; };
  const auto alone = [&](double bytes) { return 0.002 + wire(bytes); };
  const model::InFlightShares shares{0.6, 0.4};
  SystemResults s;
  for (int64_t bytes = 1024; bytes <= 1048576; bytes *= 4) {
    s.collectives.push_back(gloo("iallreduce", 4, bytes, alone(bytes)));
    const double half = bytes / 2.0;
    const double pair =
        model::pair_in_flight_s({alone(half), wire(half), alone(half), wire(half), 0}, shares);
    s.collectives.push_back(gloo("iallreduce_pair", 4, bytes, pair));
    s.collectives.push_back(gloo("iallreduce_pair", 4, bytes, pair));  // a second repetition
  }
  // Without the uneven sweep, what goes before the bytes is not told: all of it.
  InFlightFit fit = in_flight_fit(s, "gloo", 4, link);
  ASSERT_TRUE(fit.found());
  // A pair whose half the single sweep does not reach is not read (1024 B: 512 B each).
  EXPECT_EQ(fit.bytes, (std::vector<double>{4096, 16384, 65536, 262144, 1048576}));
  EXPECT_TRUE(fit.uneven_bytes.empty());
  EXPECT_EQ(fit.shares.before_bytes, 1);
  // The uneven pairs, an eighth of the floats and the rest (of 1000 B: 124 B and 876 B).
  for (int64_t bytes = 1000; bytes <= 1048576; bytes *= 4) {
    const double first = 4 * std::floor(bytes / 32.0), second = bytes - first;
    const double pair = model::pair_in_flight_s(
        {alone(first), wire(first), alone(second), wire(second), 0}, shares);
    s.collectives.push_back(gloo("iallreduce_uneven", 4, bytes, pair));
  }
  fit = in_flight_fit(s, "gloo", 4, link);
  // Of 1000 B, the eighth is below the single sweep's least size: not read.
  EXPECT_EQ(fit.uneven_bytes, (std::vector<double>{16000, 64000, 256000, 1024000}));
  EXPECT_NEAR(fit.shares.waits, 0.6, 1e-9);
  EXPECT_NEAR(fit.shares.before_bytes, 0.4, 1e-9);
  // No pair sweep on these ranks or backend: none fitted, all of a latency waits.
  EXPECT_FALSE(in_flight_fit(s, "gloo", 8, link).found());
  EXPECT_FALSE(in_flight_fit(s, "mpi", 4, link).found());
  EXPECT_EQ(in_flight_fit(s, "gloo", 8, link).shares.waits, 1);
}

}  // namespace
}  // namespace dtbench
