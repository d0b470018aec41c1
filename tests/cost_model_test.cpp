// The cost model (model/cost_model.h) against the closed forms of docs/model.md.
#include <gtest/gtest.h>

#include <vector>

#include "model/cost_model.h"

namespace dtbench::model {
namespace {

const Link kGigabit{1e-4, 1.25e8};  // 0.1 ms, 1 Gbit/s
constexpr double kVgg = 36.9e6;     // VGG-11's float32 gradient, bytes

TEST(CostModel, RingAllreduceIsTwoNMinusOneLatenciesAndTwoNMinusOneOverNOfTheBytes) {
  for (int n : {2, 4, 16, 1024}) {
    const double a = kGigabit.latency_s, b = kGigabit.bytes_per_s;
    EXPECT_NEAR(ring_allreduce_s(n, kVgg, kGigabit),
                2.0 * (n - 1) * a + 2.0 * (n - 1) / n * kVgg / b, 1e-12)
        << n;
  }
  EXPECT_EQ(ring_allreduce_s(1, kVgg, kGigabit), 0);
  // 4 ranks at 1 Gbit/s: 1.5 x 36.9 MB in 0.443 s (the emulated cluster's bound).
  EXPECT_NEAR(ring_allreduce_s(4, kVgg, kGigabit), 0.4428 + 6e-4, 1e-4);
}

TEST(CostModel, ATokenBucketHidesTheLatencyUnderTheTransfer) {
  // 100 Mbit/s of payload (12 MB/s), a bucket of 32 KB, 1 ms per step: 12 KB refill while a
  // step waits.
  const Link shaped{1e-3, 12e6, 32e3};
  const Link plain{1e-3, 12e6};
  EXPECT_DOUBLE_EQ(shaped.time(6e3), 1e-3);                // what refilled covers it: the latency
  EXPECT_DOUBLE_EQ(shaped.time(24e3), 24e3 / 12e6);        // past it: the rate, latency hidden
  EXPECT_DOUBLE_EQ(plain.time(24e3), 1e-3 + 24e3 / 12e6);  // Hockney: the sum
  // A wait longer than the bucket takes to fill refills only the bucket.
  const Link slow{10e-3, 12e6, 32e3};
  EXPECT_DOUBLE_EQ(slow.time(200e3), 10e-3 + (200e3 - 32e3) / 12e6);
}

TEST(CostModel, GatherScatterPutsTwoNMinusOneTimesTheBytesThroughRankZero) {
  for (int n : {2, 4, 16}) {
    EXPECT_NEAR(gather_scatter_s(n, kVgg, kGigabit),
                2 * kGigabit.latency_s + 2.0 * (n - 1) * kVgg / kGigabit.bytes_per_s, 1e-12);
  }
  // It grows linearly with n; the ring tends to 2 S/B.
  EXPECT_GT(gather_scatter_s(16, kVgg, kGigabit), 7 * ring_allreduce_s(16, kVgg, kGigabit));
}

// Through token buckets (100 KB deep, 10 MB/s, no latency), rank 0's way in takes the gather's
// 300 KB while its way out rests, then its way out sends the scatter's while its way in refills.
// Back to back, each finds its bucket full: (300 - 100) KB at the rate, twice, 0.04 s, where one
// drained bucket for both halves would take 0.06 s.
TEST(CostModel, GatherScatterFindsEachOfRankZerosBucketsRefilledByTheOtherHalf) {
  const Link shaped{0, 1e7, 1e5};
  EXPECT_NEAR(gather_scatter_s(4, 1e5, shaped), 0.04, 1e-12);
  EXPECT_NEAR(2 * shaped.time(3e5), 0.06, 1e-12);
}

TEST(CostModel, ChainsAndAllgatherMoveTheWholeTensorEveryStep) {
  EXPECT_NEAR(chain_reduce_broadcast_s(4, kVgg, kGigabit), 6 * kGigabit.time(kVgg), 1e-12);
  EXPECT_NEAR(ring_allgather_s(4, kVgg, kGigabit), 3 * kGigabit.time(kVgg), 1e-12);
}

TEST(CostModel, HierarchicalIsTheHostChainPlusTheLeadersRing) {
  const Link loopback{1e-5, 2e9};
  EXPECT_NEAR(hierarchical_allreduce_s(4, 1, kVgg, loopback, kGigabit),
              ring_allreduce_s(4, kVgg, kGigabit), 1e-12);
  EXPECT_NEAR(hierarchical_allreduce_s(2, 2, kVgg, loopback, kGigabit),
              2 * loopback.time(kVgg) + 2 * kGigabit.time(kVgg / 2), 1e-12);
}

TEST(CostModel, FullOverlapLeavesOnlyTheLastBucketExposed) {
  auto cost = [](double bytes) { return bytes / 1e9; };
  // Each bucket is gone before the next is ready: only the last, ready as backward ends, shows.
  std::vector<Bucket> spread = {{2e7, 0.1}, {2e7, 0.2}, {5e6, 0.3}};
  EXPECT_NEAR(exposed_after_backward_s(spread, 0.3, cost), cost(5e6), 1e-12);
  // Buckets ready faster than the link sends them queue up: all but what fit in backward shows.
  std::vector<Bucket> bunched = {{2e8, 0.0}, {2e8, 0.0}, {2e8, 0.3}};
  EXPECT_NEAR(exposed_after_backward_s(bunched, 0.3, cost), 0.6 - 0.3, 1e-12);
  // Blocking is the limit of one bucket ready at the end: all of it exposed.
  EXPECT_NEAR(exposed_after_backward_s({{6e8, 0.3}}, 0.3, cost), 0.6, 1e-12);
  EXPECT_EQ(exposed_after_backward_s({}, 0.3, cost), 0);
}

// A transfer slowed while backward runs: half its pace until 1.0 s, its own after.
TEST(CostModel, ASlowedTransferGoesAtItsOwnPaceOnceBackwardEnds) {
  auto cost = [](double bytes) { return bytes / 1e9; };
  // 0.6 s of work from 0.2 s: by 1.0 s, 0.4 s of it done at half pace; the rest ends at 1.2 s.
  // The next bucket, ready at 0.3 s, waits for it and ends at 1.3 s.
  const std::vector<Bucket> two = {{6e8, 0.2}, {1e8, 0.3}};
  const std::vector<Transfer> t = transfers_of(two, cost, {1.0, 2.0});
  EXPECT_NEAR(t[0].end, 1.2, 1e-12);
  EXPECT_NEAR(t[0].done_by(1.0), 0.4 / 0.6, 1e-12);
  EXPECT_NEAR(t[1].start, 1.2, 1e-12);
  EXPECT_NEAR(t[1].end, 1.3, 1e-12);
  EXPECT_DOUBLE_EQ(t[1].done_by(1.0), 0);
  EXPECT_NEAR(exposed_after_backward_s(two, 1.0, cost, 2.0), 0.3, 1e-12);
  // Unslowed: 0.2 to 0.8 s, then 0.8 to 0.9 s, both inside backward.
  EXPECT_DOUBLE_EQ(exposed_after_backward_s(two, 1.0, cost), 0);
  // A short transfer done inside the slow span takes twice its time.
  EXPECT_NEAR(transfers_of({{1e8, 0.0}}, cost, {1.0, 2.0})[0].end, 0.2, 1e-12);
}

// Two operations in flight at once (Gloo's process group's threads): one's latency goes while the
// other's bytes are on the wire, but two latencies, or two bytes, one after the other.
TEST(CostModel, InFlightTogetherALatencyGoesBesideTheOthersBytes) {
  // Each bucket 10 ms of latency and 1 ms per 100 kB on the wire.
  auto wire = [](double bytes) { return bytes / 1e8; };
  auto cost = [&](double bytes) { return 0.010 + wire(bytes); };
  const InFlight two{2, wire, {}};
  // A large bucket (10 + 30 ms), then a small one ready 3 ms later (10 + 1 ms): its latency,
  // after the large one's, is through at 20 ms, and its bytes follow the large one's, at 40 + 1
  // ms; one after the other, 51 ms.
  const std::vector<Bucket> large_small = {{3e6, 0.0}, {1e5, 0.003}};
  std::vector<Transfer> t = transfers_of(large_small, cost, {}, two);
  EXPECT_NEAR(t[0].end, 0.040, 1e-12);
  EXPECT_NEAR(t[1].start, 0.003, 1e-12);
  EXPECT_NEAR(t[1].end, 0.041, 1e-12);
  EXPECT_NEAR(transfers_of(large_small, cost)[1].end, 0.051, 1e-12);
  // Two small ones together: their latencies one after the other, 10 + 1 and 20 + 1 ms.
  t = transfers_of({{1e5, 0.0}, {1e5, 0.0}}, cost, {}, two);
  EXPECT_NEAR(t[0].end, 0.011, 1e-12);
  EXPECT_NEAR(t[1].end, 0.021, 1e-12);
  // A third waits for a thread: it starts as the first ends.
  t = transfers_of({{3e6, 0.0}, {1e5, 0.0}, {1e5, 0.0}}, cost, {}, two);
  EXPECT_NEAR(t[2].start, t[0].end, 1e-12);
  EXPECT_NEAR(t[2].end, std::max(t[1].end + wire(1e5), t[2].start + cost(1e5)), 1e-12);
  // The time in flight is their union, not their sum; the exposed part runs to the last end.
  EXPECT_NEAR(in_flight_s(transfers_of(large_small, cost, {}, two)), 0.041, 1e-12);
  EXPECT_NEAR(exposed_after_backward_s(transfers_of(large_small, cost, {}, two), 0.003),
              0.041 - 0.003, 1e-12);
  // One at a time (the default) is the recurrence above, whatever on_link_s says.
  const std::vector<Transfer> one = transfers_of(large_small, cost, {}, {1, wire, {}});
  EXPECT_NEAR(one[1].start, 0.040, 1e-12);
  EXPECT_NEAR(one[1].end, 0.051, 1e-12);
}

TEST(CostModel, AShareOfTheLatenciesInFlightWaitsForTheOthers) {
  // Each bucket 10 ms of latency and 1 ms per 100 kB on the wire; two small ones together.
  auto wire = [](double bytes) { return bytes / 1e8; };
  auto cost = [&](double bytes) { return 0.010 + wire(bytes); };
  const std::vector<Bucket> small_two = {{1e5, 0.0}, {1e5, 0.0}};
  // The second's latency waits for half of the first's: 5 + 10 + 1 ms; for none of it: the first
  // and the second's bytes, 10 + 1 + 1 ms; for 1.5 times it, 15 + 10 + 1 ms. The first goes as
  // alone whatever the share.
  for (const double share : {0.0, 0.5, 1.5}) {
    EXPECT_NEAR(transfers_of(small_two, cost, {}, {2, wire, {share}})[0].end, 0.011, 1e-12);
  }
  EXPECT_NEAR(transfers_of(small_two, cost, {}, {2, wire, {0.5}})[1].end, 0.016, 1e-12);
  EXPECT_NEAR(transfers_of(small_two, cost, {}, {2, wire, {0.0}})[1].end, 0.012, 1e-12);
  EXPECT_NEAR(transfers_of(small_two, cost, {}, {2, wire, {1.5}})[1].end, 0.026, 1e-12);
  // A pair as the sweep launches it, halves of 4 ms alone, 1 ms of it on the wire: the second
  // ends at the greater of both halves' bytes after one latency (3 + 1 + 1 ms) and the share of
  // the first's latency and one alone (share x 3 + 4 ms).
  const PairTime pair{0.004, 0.001, 0.004, 0.001, 0};
  EXPECT_NEAR(pair_in_flight_s(pair, {1.0}), 0.007, 1e-12);
  EXPECT_NEAR(pair_in_flight_s(pair, {0.0}), 0.005, 1e-12);
  EXPECT_NEAR(pair_in_flight_s(pair, {2.0}), 0.010, 1e-12);
}

TEST(CostModel, ALargeBucketsBytesGoUnderASmallOnesLatency) {
  // A small bucket (10 ms of latency, 1 ms of bytes) and a large one (no latency, 20 ms of bytes)
  // ready together. All of the small one's latency before its bytes: the large one's bytes wait
  // for the small one's end, 11 + 20 ms. None of it: they follow its bytes alone, 1 + 20 ms; half
  // of it, 5 + 1 + 20 ms. The small one ends after its latency and bytes whatever the share.
  auto wire = [](double bytes) { return bytes / 1e8; };
  auto cost = [&](double bytes) { return (bytes < 1e6 ? 0.010 : 0.0) + wire(bytes); };
  const std::vector<Bucket> small_large = {{1e5, 0.0}, {2e6, 0.0}};
  for (const double before : {1.0, 0.0, 0.5}) {
    const std::vector<Transfer> t = transfers_of(small_large, cost, {}, {2, wire, {0, before}});
    EXPECT_NEAR(t[0].end, 0.011, 1e-12);
    EXPECT_NEAR(t[1].end, 0.001 + 0.010 * before + 0.020, 1e-12) << before;
  }
  // The same as the sweep of uneven pairs prices it.
  const PairTime uneven{0.011, 0.001, 0.020, 0.020, 0};
  EXPECT_NEAR(pair_in_flight_s(uneven, {0, 0.5}), 0.026, 1e-12);
  // By default, one after the other: all of it waits and goes before.
  EXPECT_EQ(InFlight{}.shares.waits, 1);
  EXPECT_EQ(InFlight{}.shares.before_bytes, 1);
}

TEST(CostModel, TheSharesFittedToPairsInFlight) {
  // Pairs measured as a share of 1.4 puts them, at latency-bound and wire-bound sizes: the fit
  // finds 1.4, and with no uneven pair, leaves before_bytes at 1.
  std::vector<PairTime> even = {{0.004, 0.0001, 0.004, 0.0001, 0},
                                {0.005, 0.001, 0.005, 0.001, 0},
                                {0.030, 0.027, 0.030, 0.027, 0}};
  for (PairTime& p : even) p.measured_s = pair_in_flight_s(p, {1.4});
  InFlightShares fit = fitted_in_flight_shares(even, {});
  EXPECT_NEAR(fit.waits, 1.4, 1e-9);
  EXPECT_EQ(fit.before_bytes, 1);
  // Uneven pairs, a latency-bound eighth beside bandwidth-bound rest, as shares of 0.8 and 0.3
  // put them: both found.
  std::vector<PairTime> uneven = {{0.004, 0.0002, 0.006, 0.002, 0},
                                  {0.005, 0.001, 0.012, 0.008, 0},
                                  {0.006, 0.002, 0.040, 0.035, 0}};
  for (PairTime& p : even) p.measured_s = pair_in_flight_s(p, {0.8, 0.3});
  for (PairTime& p : uneven) p.measured_s = pair_in_flight_s(p, {0.8, 0.3});
  fit = fitted_in_flight_shares(even, uneven);
  EXPECT_NEAR(fit.waits, 0.8, 1e-9);
  EXPECT_NEAR(fit.before_bytes, 0.3, 1e-9);
  // A pair of halves that took one alone and its second half's bytes reads as no share waiting,
  // the least of the shares that put it there.
  for (PairTime& p : even) p.measured_s = p.first_s + p.second_wire_s;
  EXPECT_EQ(fitted_in_flight_shares(even, {}).waits, 0);
  // Without a pair, all of it, as transfers_of takes by default.
  fit = fitted_in_flight_shares({}, {});
  EXPECT_EQ(fit.waits, 1);
  EXPECT_EQ(fit.before_bytes, 1);
}

}  // namespace
}  // namespace dtbench::model
