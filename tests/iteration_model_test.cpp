// The iteration model (model/iteration_model.h) against results worked out by hand, and the
// link fit against lines it must recover.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "model/iteration_model.h"

namespace dtbench::model {
namespace {

const Link kLink{1e-4, 1e8};  // 0.1 ms, 100 MB/s

// A method on `ranks` ranks in `mode`, with its buckets (bytes, launch order) and DDP's cap.
Method method_of(const std::string& sync, SyncMode mode, int ranks = 4,
                 std::vector<double> buckets = {}, double cap_bytes = kDefaultBucketMb * kMiB) {
  Method m;
  m.sync = sync;
  m.ranks = ranks;
  m.options.mode = mode;
  m.options.bucket_mb = cap_bytes / kMiB;
  m.bucket_bytes = std::move(buckets);
  return m;
}

Method with_cpu(Method m, CommCpu cpu) {
  m.comm_cpu = std::move(cpu);
  return m;
}

// Three tensors of 1, 2 and 3 MB; backward (1 s) makes the last first: ready at 0.2, 0.5, 1.0 s
// for parameters 2, 1, 0.
ComputeProfile three_tensors() {
  ComputeProfile c;
  c.data_s = 0.01, c.forward_s = 0.3, c.backward_s = 1.0, c.optimizer_s = 0.05;
  c.tensor_bytes = {1e6, 2e6, 3e6};
  c.ready_s = {1.0, 0.5, 0.2};
  return c;
}

TEST(IterationModel, BlockingSendsEveryTensorAfterBackward) {
  const ComputeProfile c = three_tensors();
  for (const char* sync : {"gather_scatter", "allreduce", "ring_reduce", "allgather"}) {
    Phases p = predict(c, method_of(sync, SyncMode::blocking), kLink);
    double sum = 0;
    for (double bytes : c.tensor_bytes) sum += tensor_sync_s(sync, 4, bytes, kLink);
    EXPECT_DOUBLE_EQ(p.sync_s, sum) << sync;
    EXPECT_DOUBLE_EQ(p.comm_s, sum) << sync << ": every operation, all of it exposed";
    EXPECT_DOUBLE_EQ(p.backward_s, c.backward_s) << sync;
    EXPECT_DOUBLE_EQ(p.total_s(), 0.01 + 0.3 + 1.0 + sum + 0.05) << sync;
  }
  // gather+scatter of 1 MB on 4 ranks: 2 a + 2 (n-1) S/B.
  EXPECT_NEAR(tensor_sync_s("gather_scatter", 4, 1e6, kLink), 2e-4 + 6e6 / 1e8, 1e-12);
  // reduce then broadcast as binomial trees: 2 ceil(log2 n) (a + S/B).
  EXPECT_NEAR(tensor_sync_s("reduce_broadcast", 5, 1e6, kLink), 6 * (1e-4 + 0.01), 1e-12);
  EXPECT_DOUBLE_EQ(predict(c, method_of("none", SyncMode::blocking, 4, {}, 0), kLink).sync_s, 0);
  EXPECT_DOUBLE_EQ(predict(c, method_of("allreduce", SyncMode::blocking, 1, {}, 0), kLink).sync_s,
                   0);
}

TEST(IterationModel, OverlapLeavesWhatTheLinkHasNotSentWhenBackwardEnds) {
  const ComputeProfile c = three_tensors();
  Phases p = predict(c, method_of("allreduce", SyncMode::overlap, 4, {}, 0), kLink);
  // By hand: 3 MB ready at 0.2 s takes 6a + 1.5 x 3 MB / B = 0.0456 s; 2 MB at 0.5 s, 0.0306 s;
  // 1 MB at 1.0 s, 0.0156 s: only the last is exposed.
  EXPECT_NEAR(p.sync_s, 6e-4 + 1.5e6 / 1e8, 1e-12);
  EXPECT_NEAR(p.comm_s, 0.0456 + 0.0306 + 0.0156, 1e-12) << "hidden or not, every bucket's time";
  // A slow link: the buckets queue up and everything after backward's end shows.
  const Link slow{0, 1e6};
  Phases q = predict(c, method_of("allreduce", SyncMode::overlap, 4, {}, 0), slow);
  EXPECT_NEAR(q.sync_s, 0.2 + 1.5 * 6e6 / 1e6 - 1.0, 1e-9);
}

TEST(IterationModel, BucketsFillFromTheLastParameterAndWaitForTheirLatestGradient) {
  const ComputeProfile c = three_tensors();
  auto buckets = buckets_of(c, method_of("bucketed", SyncMode::overlap, 4, {5e6, 1e6}, 0));
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_DOUBLE_EQ(buckets[0].bytes, 5e6);  // parameters 2 and 1
  EXPECT_DOUBLE_EQ(buckets[0].ready_s, 0.5);
  EXPECT_DOUBLE_EQ(buckets[1].bytes, 1e6);
  EXPECT_DOUBLE_EQ(buckets[1].ready_s, 1.0);
  // Without recorded buckets (c10d_ddp), DDP's plan: the first closes at 1 MiB, then the cap.
  auto ddp = buckets_of(c, method_of("c10d_ddp", SyncMode::overlap, 4, {}, 4e6));
  ASSERT_EQ(ddp.size(), 2u);
  EXPECT_DOUBLE_EQ(ddp[0].bytes, 3e6);
  EXPECT_DOUBLE_EQ(ddp[1].bytes, 3e6);
  // DDP's Reducer waits inside backward.
  Phases p = predict(c, method_of("c10d_ddp", SyncMode::overlap, 4, {}, 4e6), kLink);
  EXPECT_DOUBLE_EQ(p.sync_s, 0);
  EXPECT_GT(p.backward_s, c.backward_s);
}

// The CPU that communication takes from compute, with the three tensors on a slow link (each
// tensor's ring allreduce: 1.5 S / 1e7 s) and 0.1 s of a machine's CPU per MB, on 2 cores.
TEST(IterationModel, CommunicationDuringBackwardTakesItsCpuFromBackward) {
  const ComputeProfile c = three_tensors();
  const Link slow{0, 1e7};
  // bucketed, one bucket per tensor: the same schedule as the tensors'.
  Method m = method_of("bucketed", SyncMode::overlap, 4, {3e6, 2e6, 1e6});
  m.comm_cpu = {[](double b) { return b * 1e-7; }, 2};
  auto cost = [&](double b) { return tensor_sync_s("bucketed", 4, b, slow); };
  // By hand: 3 MB ready at 0.2 s runs 0.45 s, to 0.65 s, before backward ends (0.3 s of CPU);
  // 2 MB from 0.65 s to 0.95 s (0.2 s); 1 MB from 1.0 s, after backward: none. On 2 cores:
  // (0.3 + 0.2) / 2 = 0.25 s.
  EXPECT_NEAR(overlapped_cpu_s(buckets_of(c, m), 1.0, cost, m.comm_cpu), 0.25, 1e-12);
  // Half of a transfer before backward's end counts half its CPU.
  EXPECT_NEAR(overlapped_cpu_s({{2e6, 0.8}}, 1.0, cost, m.comm_cpu), 0.2 * 0.2 / 0.3 / 2, 1e-12);
  // predict: backward 1.25 s; the ready times stretch by 1.25 (0.25, 0.625, 1.25): 3 MB runs
  // to 0.7 s, 2 MB to 1.0 s, and the last bucket goes at 1.25 s and takes 0.15 s.
  Phases p = predict(c, m, slow);
  EXPECT_NEAR(p.backward_s, 1.25, 1e-12);
  EXPECT_NEAR(p.sync_s, 0.15, 1e-12);
  // Without the CPU term, or blocking (nothing overlaps compute): backward as measured.
  m.comm_cpu = {};
  EXPECT_DOUBLE_EQ(predict(c, m, slow).backward_s, 1.0);
  m = method_of("bucketed", SyncMode::blocking, 4, {3e6, 2e6, 1e6});
  m.comm_cpu = {[](double b) { return b * 1e-7; }, 2};
  EXPECT_DOUBLE_EQ(predict(c, m, slow).backward_s, 1.0);
}

// A hook runs its buckets' collectives on a communication thread. With 4 ranks on 2 cores, that
// thread gets a compute thread's share of them while backward runs: its collectives go half as
// fast until backward ends (hierarchical's leaders' ring measured about half the link's rate
// beside backward on the emulated cluster), and take CPU from backward only for the work they
// did there.
TEST(IterationModel, AHooksCollectivesGoSlowerBesideBackwardOnBusyCores) {
  const ComputeProfile c = three_tensors();
  const Link slow{0, 1e7};
  // One rank per host: each bucket a ring among the 4, 0.45, 0.3 and 0.15 s, as bucketed's.
  Method m = method_of("hierarchical", SyncMode::overlap, 4, {3e6, 2e6, 1e6});
  m.comm_cpu = {[](double b) { return b * 1e-7; }, 2, 4};
  EXPECT_DOUBLE_EQ(m.comm_cpu.slowdown(), 2);
  // By hand: 3 MB from 0.2 s at half pace does 0.4 of its 0.45 s by 1.0 s: 0.3 s x 0.4 / 0.45
  // of CPU, on 2 cores. backward 1 + 2/15 s; the ready times stretch with it. Then 3 MB from
  // 0.2267 s, done at half pace by 1.1267 s; 2 MB from there, 0.0067 s at half pace, the rest
  // by 1.43 s; 1 MB to 1.58 s.
  const Phases p = predict(c, m, slow);
  const double backward = 1 + 0.3 * 0.4 / 0.45 / 2;
  EXPECT_NEAR(p.backward_s, backward, 1e-12);
  const double first_end = 0.2 * backward + 0.9;
  const double second_end = backward + 0.3 - (backward - first_end) / 2;
  EXPECT_NEAR(p.sync_s, second_end + 0.15 - backward, 1e-12);
  // On the clock, as a trace holds it, the slowed buckets take longer than their own times.
  EXPECT_NEAR(p.comm_s, (second_end - 0.2 * backward) + 0.15, 1e-12);
  // bucketed's own iallreduce, on the same cores, is not slowed.
  Method flat = method_of("bucketed", SyncMode::overlap, 4, {3e6, 2e6, 1e6});
  flat.comm_cpu = m.comm_cpu;
  EXPECT_NEAR(predict(c, flat, slow).sync_s, 0.15, 1e-12);
  // Cores left free (or no CPU term): the hook's buckets go at their own pace, as bucketed's.
  m.comm_cpu.threads = 2;
  EXPECT_DOUBLE_EQ(m.comm_cpu.slowdown(), 1);
  EXPECT_NEAR(predict(c, m, slow).sync_s, 0.15, 1e-12);
}

// Through token buckets, the compute refills them and a blocking method's first bytes go without
// waiting for the rate. A time its sweep measured already holds the credit the sweep's own
// operations found: as much as the link refilled while an operation left it idle (its measured
// time less its time on the rate), all of it where swept after a rest. Only the credit beyond
// that saves time.
TEST(IterationModel, ASweepsOwnCreditIsNotCountedTwice) {
  ComputeProfile c;
  c.forward_s = 0.3, c.backward_s = 1.0;
  c.tensor_bytes = {1e6};
  c.ready_s = {1.0};
  const Link bucket{0, 1e7, 2e5};  // 10 MB/s, 200 KB deep: full after the compute
  Link no_rate = bucket;
  no_rate.bytes_per_s = 1e30;
  no_rate.burst_bytes = 0;
  const double on_rate =
      tensor_sync_s("allreduce", 4, 1e6, bucket) - tensor_sync_s("allreduce", 4, 1e6, no_rate);
  ASSERT_GT(on_rate, 0.02);
  Method m = method_of("allreduce", SyncMode::blocking, 4);
  // Priced on the link: the whole 200 KB saves 0.02 s.
  const double on_link = tensor_sync_s("allreduce", 4, 1e6, bucket);
  EXPECT_NEAR(predict(c, m, bucket).sync_s, on_link - 0.02, 1e-9);
  // A sweep whose operations left the link idle 0.01 s each found 100 KB: 0.01 s saved.
  m.measured_cost = [&](double) { return on_rate + 0.01; };
  EXPECT_NEAR(predict(c, m, bucket).sync_s, on_rate + 0.01 - 0.01, 1e-9);
  // Idle 0.05 s each: the sweep found the buckets full, as training does: nothing saved.
  m.measured_cost = [&](double) { return on_rate + 0.05; };
  EXPECT_NEAR(predict(c, m, bucket).sync_s, on_rate + 0.05, 1e-9);
  // Swept after a rest up to its size: each operation found the buckets full, however briefly
  // it left the link idle: nothing saved. Up to a smaller size only: as before, 0.01 s.
  m.measured_cost = [&](double) { return on_rate + 0.01; };
  m.rested_up_to_bytes = 1e6;
  EXPECT_NEAR(predict(c, m, bucket).sync_s, on_rate + 0.01, 1e-9);
  m.rested_up_to_bytes = 5e5;
  EXPECT_NEAR(predict(c, m, bucket).sync_s, on_rate, 1e-9);
}

// A per-tensor method overlaps by running each tensor's blocking collective on a communication
// thread. Where the machine's ranks keep its cores busy, that thread shares a core with the
// compute: backward pays the CPU as bucketed's does, and the collectives finish after it, none
// hidden (LeNet-5's overlapping allreduce over MPI measured as much sync as the blocking one, or
// more, on every system that ran it). Cores left free: hidden as bucketed's buckets are.
TEST(IterationModel, PerTensorOverlapOnBusyCoresFinishesItsCollectivesAfterBackward) {
  ComputeProfile c = three_tensors();
  c.straggler_s = 0.1;
  const Link slow{0, 1e7};
  Method m = method_of("allreduce", SyncMode::overlap, 4, {}, 0);
  m.comm_cpu = {[](double b) { return b * 1e-7; }, 2};
  const Phases p = predict(c, m, slow);
  EXPECT_NEAR(p.backward_s, 1.25, 1e-12) << "the CPU of what ran beside backward";
  EXPECT_NEAR(p.sync_s, 0.45 + 0.3 + 0.15 + 0.1, 1e-12) << "every tensor, then the straggler";
  m.comm_cpu = {};
  EXPECT_NEAR(predict(c, m, slow).sync_s, 0.15 + 0.1, 1e-12) << "only the last tensor shows";
}

// Every synchronisation waits for the slowest rank's compute: 0.1 s later than the profile's.
TEST(IterationModel, TheSlowestRanksLagIsWaitedFor) {
  ComputeProfile c = three_tensors();
  const Phases blocking = predict(c, method_of("allreduce", SyncMode::blocking, 4, {}, 0), kLink);
  const Phases overlap = predict(c, method_of("allreduce", SyncMode::overlap, 4, {}, 0), kLink);
  const Phases ddp = predict(c, method_of("c10d_ddp", SyncMode::overlap, 4, {}, 4e6), kLink);
  const double best = best_iteration_s(c, 4, kLink);
  c.straggler_s = 0.1;
  EXPECT_NEAR(predict(c, method_of("allreduce", SyncMode::blocking, 4, {}, 0), kLink).sync_s,
              blocking.sync_s + 0.1, 1e-12);
  EXPECT_NEAR(predict(c, method_of("allreduce", SyncMode::overlap, 4, {}, 0), kLink).sync_s,
              overlap.sync_s + 0.1, 1e-12);
  const Phases ddp_lag = predict(c, method_of("c10d_ddp", SyncMode::overlap, 4, {}, 4e6), kLink);
  EXPECT_NEAR(ddp_lag.backward_s, ddp.backward_s + 0.1, 1e-12);  // the Reducer waits there
  EXPECT_DOUBLE_EQ(ddp_lag.sync_s, 0);
  EXPECT_NEAR(best_iteration_s(c, 4, kLink), best + 0.1, 1e-12);  // no plan avoids it
  // Nothing to wait for: no synchronisation, or one rank.
  EXPECT_DOUBLE_EQ(predict(c, method_of("none", SyncMode::blocking, 4, {}, 0), kLink).sync_s, 0);
  EXPECT_DOUBLE_EQ(predict(c, method_of("allreduce", SyncMode::blocking, 1, {}, 0), kLink).sync_s,
                   0);
}

// The iteration counted is the slowest rank's: every synchronising method's, not a phase, and
// not on one rank.
TEST(IterationModel, TheSlowestRanksIterationIsCounted) {
  ComputeProfile c = three_tensors();
  const double best = best_iteration_s(c, 4, kLink);
  std::vector<Phases> before;
  const std::vector<Method> methods = {method_of("allreduce", SyncMode::blocking, 4, {}, 0),
                                       method_of("allreduce", SyncMode::overlap, 4, {}, 0),
                                       method_of("allreduce", SyncMode::stale, 4, {}, 0),
                                       method_of("c10d_ddp", SyncMode::overlap, 4, {}, 4e6),
                                       method_of("local_sgd", SyncMode::blocking, 4, {}, 0)};
  before.reserve(methods.size());
  for (const Method& m : methods) before.push_back(predict(c, m, kLink));
  c.slowest_excess_s = 0.02;
  for (size_t i = 0; i < methods.size(); ++i) {
    const Phases after = predict(c, methods[i], kLink);
    EXPECT_NEAR(after.total_s(), before[i].total_s() + 0.02, 1e-12) << methods[i].sync;
    EXPECT_NEAR(after.phases_s(), before[i].phases_s(), 1e-12) << methods[i].sync;
    EXPECT_DOUBLE_EQ(after.slowest_excess_s, 0.02);
  }
  EXPECT_NEAR(best_iteration_s(c, 4, kLink), best + 0.02, 1e-12);  // no plan avoids it
  const Phases alone = predict(c, method_of("allreduce", SyncMode::blocking, 1, {}, 0), kLink);
  EXPECT_DOUBLE_EQ(alone.slowest_excess_s, 0);
  EXPECT_DOUBLE_EQ(alone.total_s(), alone.phases_s());
}

// Without synchronisation no rank waits for another: the slowest rank's iteration is longer than
// the ranks' mean by its compute's lag, whatever the synchronising runs' ranks leave apart.
TEST(IterationModel, WithoutSynchronisationTheSlowestRanksLagIsItsIteration) {
  ComputeProfile c = three_tensors();
  const Method none = method_of("none", SyncMode::blocking, 4, {}, 0);
  const Phases even = predict(c, none, kLink);
  EXPECT_DOUBLE_EQ(even.slowest_excess_s, 0);
  c.straggler_s = 0.1;
  c.slowest_excess_s = 0.02;
  const Phases lagging = predict(c, none, kLink);
  EXPECT_DOUBLE_EQ(lagging.slowest_excess_s, 0.1);
  EXPECT_DOUBLE_EQ(lagging.sync_s, 0);
  EXPECT_NEAR(lagging.total_s(), even.total_s() + 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(predict(c, method_of("none", SyncMode::blocking, 1, {}, 0), kLink).total_s(),
                   even.total_s());  // one rank: none behind it
}

// Through a token bucket (2 MB deep, 100 MB/s, 10 KB refilled while a step waits its 0.1 ms)
// the compute before a synchronisation fills it, and its first bytes go without waiting for the
// rate: the tensors sent first (the last parameter's 3 MB, 6 steps of 0.75 MB) take 2 MB / rate
// less, whatever prices them, as far as their time waits for the rate at all.
TEST(IterationModel, ComputeRefillsTheTokenBucketTheSynchronisationStartsFrom) {
  ComputeProfile c = three_tensors();  // 1.36 s of compute: the bucket refills to its depth
  const Link shaped{1e-4, 1e8, 2e6};
  const Method blocking = method_of("allreduce", SyncMode::blocking, 4, {}, 0);
  double drained = 0;
  for (double b : c.tensor_bytes) drained += ring_allreduce_s(4, b, shaped);
  EXPECT_NEAR(predict(c, blocking, shaped).sync_s, drained - 2e6 / 1e8, 1e-12);
  // No bucket, no credit: Hockney's sum for every tensor.
  const Link plain{1e-4, 1e8};
  double hockney = 0;
  for (double b : c.tensor_bytes) hockney += ring_allreduce_s(4, b, plain);
  EXPECT_NEAR(predict(c, blocking, plain).sync_s, hockney, 1e-12);
  // A sweep's measured cost already holds the credit its own operations found, what the link
  // refilled while each left it idle (its time less its time on the rate): the 3 and 2 MB
  // tensors' sweeps (0.07 and 0.05 s, 0.045 and 0.03 s of it on the rate) found the bucket full;
  // the 1 MB one's, 1e8 x (0.03 s - its time on the rate). Only the rest of the 2 MB saves time.
  Method swept = blocking;
  swept.measured_cost = [](double b) { return 0.01 + b / 5e7; };
  Link no_rate = shaped;
  no_rate.bytes_per_s = 1e300;
  no_rate.burst_bytes = 0;
  const double on_rate = ring_allreduce_s(4, 1e6, shaped) - ring_allreduce_s(4, 1e6, no_rate);
  const double found = 1e8 * (0.03 - on_rate);
  EXPECT_NEAR(predict(c, swept, shaped).sync_s, 0.03 + 6e6 / 5e7 - (2e6 - found) / 1e8, 1e-12);
  // 10 ms of compute refills 1 MB of it.
  ComputeProfile quick = c;
  quick.data_s = 0, quick.forward_s = 0.004, quick.backward_s = 0.006, quick.optimizer_s = 0;
  quick.ready_s = {0.006, 0.003, 0.0012};
  EXPECT_NEAR(predict(quick, blocking, shaped).sync_s, drained - 1e6 / 1e8, 1e-12);
  // Tensors whose steps the refill during their latency covers never wait for the rate: nothing
  // to give up.
  ComputeProfile small = c;
  small.tensor_bytes = {4e3, 8e3, 12e3};
  double latency_only = 0;
  for (double b : small.tensor_bytes) latency_only += ring_allreduce_s(4, b, shaped);
  EXPECT_NEAR(latency_only, 3 * 6 * 1e-4, 1e-12);
  EXPECT_NEAR(predict(small, blocking, shaped).sync_s, latency_only, 1e-12);
  // Overlap: the compute until the first bucket is ready (0.36 s + 0.2 s) refills it too.
  const Method overlap = method_of("bucketed", SyncMode::overlap, 4, {6e6});
  const Link slow{1e-4, 1e7, 2e6};  // 0.6 s per 6 MB ring: most of it after backward
  const Link slow_plain{1e-4, 1e7};
  EXPECT_NEAR(predict(c, overlap, slow).comm_s, ring_allreduce_s(4, 6e6, slow) - 2e6 / 1e7, 1e-12);
  EXPECT_NEAR(predict(c, overlap, slow_plain).comm_s, ring_allreduce_s(4, 6e6, slow_plain), 1e-12);
}

// What a rest saved, where a rested sweep measured it, replaces the token bucket's credit: the
// first bucket to go saves that, and no more.
TEST(IterationModel, WhatARestSavedReplacesTheTokenBucketsCredit) {
  const ComputeProfile c = three_tensors();
  const Link slow{1e-4, 1e7, 2e6};
  Method overlap = method_of("bucketed", SyncMode::overlap, 4, {6e6});
  const double full = ring_allreduce_s(4, 6e6, slow);
  EXPECT_NEAR(predict(c, overlap, slow).comm_s, full - 2e6 / 1e7, 1e-12);  // the bucket's credit
  overlap.rest_saves_s = [](double) { return 0.05; };
  EXPECT_NEAR(predict(c, overlap, slow).comm_s, full - 0.05, 1e-12);
  overlap.rest_saves_s = [](double) { return 0.0; };  // a rest saved nothing
  EXPECT_NEAR(predict(c, overlap, slow).comm_s, full, 1e-12);
  overlap.rest_saves_s = [](double) { return 10.0; };  // never more than the bucket's time
  EXPECT_NEAR(predict(c, overlap, slow).comm_s, 0, 1e-12);
}

// Buckets in flight together (Gloo's two threads): the last, small bucket's latency goes while
// the large one's bytes are on the wire; its bytes follow theirs.
TEST(IterationModel, BucketsInFlightTogetherHideALatencyBehindTheOthersBytes) {
  ComputeProfile c = three_tensors();
  const Link slow{1e-3, 1e7};  // a step 1 ms; 10 MB/s
  Method one = method_of("bucketed", SyncMode::overlap, 4, {5e6, 1e6});
  Method two = one;
  two.in_flight = 2;
  // The 5 MB bucket (tensors 2 and 1) is ready at 0.5 s, the 1 MB one at 1.0 s; the first takes
  // 6 ms + 0.75 s.
  const double first_end = 0.5 + ring_allreduce_s(4, 5e6, slow);
  const double wire = 1.5 * 1e6 / 1e7;
  EXPECT_NEAR(predict(c, one, slow).sync_s, first_end + ring_allreduce_s(4, 1e6, slow) - 1.0,
              1e-12);
  EXPECT_NEAR(predict(c, two, slow).sync_s, first_end + wire - 1.0, 1e-12);
  // The communication a trace holds is their time in flight: from 0.5 s to the last end.
  EXPECT_NEAR(predict(c, two, slow).comm_s, first_end + wire - 0.5, 1e-12);
}

// Where the links take turns, an iteration's calls are followed through the hosts' buckets. On
// 2 ranks reduce_broadcast over MPI is one message each way, and its reduce and broadcast take
// different ways: LeNet-5's tensors in the model's order, blocking, after a rest that filled
// every bucket. 9,600 B goes at once and leaves 21.4 KB each way; 192,000 B's reduce finds that,
// its broadcast ways refilled during the reduce; 40,320 B's reduce finds its ways refilled during
// that broadcast, its broadcast the ways that broadcast drained, refilled only during its reduce.
TEST(IterationModel, AStepsCallsFindTheBucketsThePreviousOnesLeft) {
  ComputeProfile c;
  c.forward_s = 0.002, c.backward_s = 0.002;
  c.tensor_bytes = {9600, 192000, 40320};  // the model's order
  c.ready_s = {0.002, 0.0015, 0.001};
  const double rate = 12e6, depth = 31e3;
  const Link shaped{0, rate, depth};
  Method m = method_of("reduce_broadcast", SyncMode::blocking, 2, {}, 0);
  m.backend = "mpi";
  const double reduce = (40320 - depth) / rate;
  const double followed = (192000 - (depth - 9600)) / rate + (192000 - depth) / rate + reduce +
                          (40320 - rate * reduce) / rate;
  EXPECT_NEAR(predict(c, m, shaped).sync_s, followed, 1e-12);
  // A measured time moves by what the call takes there less what it takes settled.
  Method swept = m;
  swept.measured_cost = [&](double b) {
    return tensor_sync_s("reduce_broadcast", 2, b, shaped, "mpi");
  };
  EXPECT_NEAR(predict(c, swept, shaped).sync_s, followed, 1e-12);
  // Swept apart, reduce and broadcast each back to back with itself, on links alike: the sum
  // composed by the formula is priced as the two swept together.
  Method apart = m;
  apart.apart = apart.compose_apart = true;
  apart.measured_cost = [&](double b) {
    return tensor_sync_s("reduce_broadcast", 2, b, shaped, "mpi", /*apart=*/true);
  };
  EXPECT_NEAR(predict(c, apart, shaped).sync_s, followed, 1e-12);
  // On unlike links (a bottleneck host's), the two sweeps' sum: each way's credit spent once.
  apart.compose_apart = false;
  EXPECT_GT(predict(c, apart, shaped).sync_s, followed + 5e-3);
}

TEST(IterationModel, StaleHidesTheSumsBehindTheNextIteration) {
  const ComputeProfile c = three_tensors();
  EXPECT_DOUBLE_EQ(predict(c, method_of("allreduce", SyncMode::stale, 4, {}, 0), kLink).sync_s, 0);
  // 9 s of sums against the next step's 1.3 s of forward and backward (they go out after its
  // data, and its optimizer waits for them).
  const Link slow{0, 1e6};
  EXPECT_NEAR(predict(c, method_of("allreduce", SyncMode::stale, 4, {}, 0), slow).sync_s, 9.0 - 1.3,
              1e-9);
}

// Where the machine's ranks keep its cores busy, a stale method's sums wait for the compute to
// end (LeNet-5's stale allreduce over MPI measured as much sync as the blocking one, or more, on
// every system that ran it): nothing hidden, no CPU taken from backward, the wait for the
// slowest rank paid.
TEST(IterationModel, StaleOnBusyCoresFinishesItsSumsAfterTheCompute) {
  ComputeProfile c = three_tensors();
  c.straggler_s = 0.1;
  const CommCpu busy{[](double b) { return b * 1e-7; }, 2};
  Method stale = with_cpu(method_of("allreduce", SyncMode::stale, 4, {}, 0), busy);
  Method blocking = with_cpu(method_of("allreduce", SyncMode::blocking, 4, {}, 0), busy);
  const Phases s = predict(c, stale, kLink), b = predict(c, blocking, kLink);
  EXPECT_NEAR(s.sync_s, b.sync_s, 1e-12);
  EXPECT_GT(s.sync_s, 0.1);
  EXPECT_DOUBLE_EQ(s.backward_s, c.backward_s);
  // Cores left free: hidden behind the next iteration, as above.
  stale.comm_cpu = {};
  EXPECT_DOUBLE_EQ(predict(c, stale, kLink).sync_s, 0);
}

TEST(IterationModel, NoBucketPlanBeatsTheBestIteration) {
  const ComputeProfile c = three_tensors();
  const Link slow{1e-3, 2e6};
  const double best = best_iteration_s(c, 4, slow);
  // Every way to cut three tensors into buckets, in order, is at or above it.
  for (const std::vector<double>& plan :
       std::vector<std::vector<double>>{{6e6}, {3e6, 3e6}, {5e6, 1e6}, {3e6, 2e6, 1e6}}) {
    EXPECT_GE(predict(c, method_of("bucketed", SyncMode::overlap, 4, plan), slow).total_s(),
              best - 1e-12);
  }
  // Here the bound is the last gradient's 1 MB after backward, or all 6 MB after 0.2 s.
  const double last = ring_allreduce_s(4, 1e6, slow);
  const double all = 0.2 + ring_allreduce_s(4, 6e6, slow) - 1.0;
  EXPECT_NEAR(best, 1.36 + std::max(last, all), 1e-12);
}

// With communication's CPU (0.1 s of a machine's CPU per MB, 2 cores, each byte sent during
// backward slows it by 5e-8 s): every byte not exposed after backward is paid for in backward.
TEST(IterationModel, NoBucketPlanBeatsTheBestIterationWithCommunicationsCpu) {
  const ComputeProfile c = three_tensors();
  const Link slow{0, 1e7};  // a ring allreduce of S: 1.5 S / 1e7 s
  const CommCpu cpu{[](double b) { return b * 1e-7; }, 2};
  const double best = best_iteration_s(c, 4, slow, cpu);
  // By hand: backward stretches at most by 6 MB x 5e-8 = 0.3 s (x 1.3); the last 1 MB is
  // exposed (0.15 s, which sends 1 MB), the other 5 MB cost 0.25 s of backward.
  EXPECT_NEAR(best, 1.36 + 0.15 + 0.25, 1e-9);
  EXPECT_LT(best_iteration_s(c, 4, slow), best);  // without the CPU: 1.36 + 0.15
  EXPECT_NEAR(best_iteration_s(c, 4, slow), 1.36 + 0.15, 1e-9);
  for (const std::vector<double>& plan :
       std::vector<std::vector<double>>{{6e6}, {3e6, 3e6}, {5e6, 1e6}, {3e6, 2e6, 1e6}}) {
    EXPECT_GE(predict(c, with_cpu(method_of("bucketed", SyncMode::overlap, 4, plan), cpu), slow)
                  .total_s(),
              best - 1e-9);
  }
  // One bucket per tensor reaches it (backward 1.25 s, the last 0.15 s exposed).
  EXPECT_NEAR(
      predict(c, with_cpu(method_of("bucketed", SyncMode::overlap, 4, {3e6, 2e6, 1e6}), cpu), slow)
          .total_s(),
      best, 1e-9);
  // CPU dearer than the link (0.5 us a byte against 0.15): best to send it all after backward.
  const CommCpu dear{[](double b) { return b * 1e-6; }, 2};
  EXPECT_NEAR(best_iteration_s(c, 4, slow, dear), 1.36 + 0.9, 1e-9);
}

TEST(IterationModel, UnknownMethodsAreNotModelled) {
  EXPECT_FALSE(modelled("carrier_pigeon"));
  EXPECT_THROW(
      predict(three_tensors(), method_of("carrier_pigeon", SyncMode::overlap, 4, {}, 0), kLink),
      std::invalid_argument);
}

// hierarchical: each bucket reduced within its host, allreduced among the hosts' first ranks,
// broadcast within the host (docs/strategies.md). One 6 MB bucket on 2 hosts of 2 ranks, sent
// after backward: a reduce and a broadcast on the link within a host, 2 (a_in + S/B_in), and a
// ring among 2 leaders, 2 (a + S/2 / B).
TEST(IterationModel, HierarchicalSendsEachBucketInTwoLevels) {
  const ComputeProfile c = three_tensors();
  const Link inside{1e-5, 1e9};  // 10 us, 1 GB/s
  Method m = method_of("hierarchical", SyncMode::blocking, 4, {6e6});
  m.placement = {2, inside};
  const double by_hand = 2 * (1e-5 + 6e6 / 1e9) + 2 * (1e-4 + 3e6 / 1e8);
  EXPECT_NEAR(predict(c, m, kLink).sync_s, by_hand, 1e-12);
  // One rank per host: only the ring among all 4, as bucketed's.
  m.placement = {1, inside};
  const Method flat = method_of("bucketed", SyncMode::blocking, 4, {6e6}, 0);
  EXPECT_NEAR(predict(c, m, kLink).sync_s, predict(c, flat, kLink).sync_s, 1e-12);
  // Every rank on one host: the reduce and broadcast alone, a chain of 3 steps each way.
  m.placement = {4, inside};
  EXPECT_NEAR(predict(c, m, kLink).sync_s, 6 * (1e-5 + 6e6 / 1e9), 1e-12);
  // Overlapped with backward on its buckets: the last one (1 MB, ready at 1.0 s) is exposed.
  m = method_of("hierarchical", SyncMode::overlap, 4, {5e6, 1e6});
  m.placement = {2, inside};
  EXPECT_NEAR(predict(c, m, kLink).sync_s, 2 * (1e-5 + 1e6 / 1e9) + 2 * (1e-4 + 5e5 / 1e8), 1e-12);
}

TEST(IterationModel, AMeasuredCostReplacesTheFormula) {
  const ComputeProfile c = three_tensors();
  Method m = method_of("allreduce", SyncMode::blocking);
  m.measured_cost = [](double bytes) { return bytes * 1e-7; };
  EXPECT_NEAR(predict(c, m, kLink).sync_s, 6e6 * 1e-7, 1e-12);
  m.options.mode =
      SyncMode::overlap;  // 0.3 s after 0.2, 0.2 s after 0.5 (queued behind it), 0.1 s after 1.0
  EXPECT_NEAR(predict(c, m, kLink).sync_s, 0.1, 1e-12);
}

// The lossy methods send their own collectives per bucket (docs/compression.md): the three
// tensors in one 6 MB bucket, sent after backward (blocking).
TEST(IterationModel, TheLossyHooksSendWhatTheirFormulasSay) {
  const ComputeProfile c = three_tensors();
  auto blocking = [&](const std::string& sync, const ComputeProfile& compute,
                      int64_t first_iteration = kTimedFirst) {
    Method m = method_of(sync, SyncMode::blocking, 4, {6e6});
    m.first_iteration = first_iteration;
    return predict(compute, m, kLink).sync_s;
  };
  const auto ring = [](double bytes) { return ring_allreduce_s(4, bytes, kLink); };
  // fp16: one allreduce of half the bytes.
  EXPECT_NEAR(blocking("fp16", c), ring(3e6), 1e-12);
  // topk at 1% of 1.5e6 elements: k = 15,000; two ring allgathers of 4k bytes on 4 ranks:
  // 2 x 3 (a + 6e4 / B).
  EXPECT_NEAR(blocking("topk", c), 2 * 3 * (1e-4 + 6e4 / 1e8), 1e-12);
  // powersgd at rank 1: 1000 x 250 and 500 x 1000 matrices send P (1000 + 500 elements) and Q
  // (250 + 1000); the 1-D tensor (750,000 elements) goes uncompressed. Three allreduces.
  ComputeProfile shaped = c;
  shaped.shapes = {{1000, 250}, {500, 1000}, {750000}};
  const double compressed = ring(4 * 750000.0) + ring(4 * 1500.0) + ring(4 * 1250.0);
  EXPECT_NEAR(blocking("powersgd", shaped, SyncOptions{}.powersgd_start), compressed, 1e-12);
  // The iterations predicted (1..39) before its start (10): 9 of 39 a plain allreduce of the
  // bucket.
  EXPECT_NEAR(blocking("powersgd", shaped), (30 * compressed + 9 * ring(6e6)) / 39, 1e-12);
  // Without shapes nothing compresses: one allreduce of every element, as the uncompressed part.
  EXPECT_NEAR(blocking("powersgd", c, SyncOptions{}.powersgd_start), ring(6e6), 1e-12);
  // local_sgd: every 4 steps an allreduce of all 6 MB, whatever the mode, and the slowest rank's
  // lag in every iteration.
  ComputeProfile lagging = c;
  lagging.straggler_s = 0.1;
  Method local = method_of("local_sgd", SyncMode::overlap);
  local.options.local_sgd_period = 4;
  EXPECT_NEAR(predict(lagging, local, kLink).sync_s, ring(6e6) / 4 + 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(predict(lagging, local, kLink).backward_s, c.backward_s);
}

// In overlap, a lossy bucket is charged the CPU of what it sends (its sent_bytes), not of its
// gradient's bytes.
TEST(IterationModel, ALossyBucketCostsTheCpuOfWhatItSends) {
  const ComputeProfile c = three_tensors();
  Method m = with_cpu(method_of("fp16", SyncMode::overlap, 4, {5e6, 1e6}),
                      {[](double b) { return b * 1e-7; }, 2});
  auto cost = [&](double b) { return tensor_sync_s("fp16", 4, b, kLink); };
  auto buckets = buckets_of(c, m, cost, kLink);
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_DOUBLE_EQ(buckets[0].sent(), 2.5e6);
  EXPECT_DOUBLE_EQ(buckets[0].seconds, cost(2.5e6));
  // The 2.5 MB of the first bucket run from 0.5 s for 0.0381 s, all before backward ends, and
  // the last bucket after it: 0.25 s of a machine's CPU, 0.125 s on each of 2 cores.
  EXPECT_NEAR(overlapped_cpu_s(buckets, 1.0, cost, m.comm_cpu), 2.5e6 * 1e-7 / 2, 1e-12);
}

// Where a sweep measured the hook (its time and a machine's CPU, compressing included), a lossy
// bucket takes those instead of what it sends on the link; PowerSGD's plain iterations are still
// an allreduce's.
TEST(IterationModel, AMeasuredHookReplacesTheLinkAndTheAllreducesCpu) {
  const ComputeProfile c = three_tensors();
  const CommCpu allreduce_cpu{[](double b) { return b * 1e-7; }, 2};
  const MeasuredHook hook{[](double b) { return 0.1 + b * 1e-8; },
                          [](double b) { return b * 4e-8; }};
  Method m = with_cpu(method_of("topk", SyncMode::overlap, 4, {5e6, 1e6}), allreduce_cpu);
  m.hook = hook;
  auto cost = [&](double b) { return tensor_sync_s("topk", 4, b, kLink); };
  auto buckets = buckets_of(c, m, cost, kLink);
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_DOUBLE_EQ(buckets[0].seconds, 0.15);
  EXPECT_DOUBLE_EQ(buckets[0].cpu_s, 0.2);
  EXPECT_DOUBLE_EQ(buckets[1].seconds, 0.11);
  // The first bucket (ready at 0.5 s) runs before backward ends: its 0.2 s of a machine's CPU on
  // 2 cores stretch backward to 1.1 s and the ready times with it; the second bucket, ready at
  // 1.1 s, is what is left: 0.11 s of sync.
  const Phases p = predict(c, m, kLink);
  EXPECT_NEAR(p.backward_s, 1.1, 1e-12);
  EXPECT_NEAR(p.sync_s, 0.11, 1e-12);

  Method powersgd =
      with_cpu(method_of("powersgd", SyncMode::overlap, 4, {5e6, 1e6}), allreduce_cpu);
  powersgd.hook = hook;
  // Half the iterations predicted before its start: iterations 1..18 of 1..36.
  powersgd.options.powersgd_start = 19;
  powersgd.last_iteration = 36;
  auto plain = [&](double b) { return tensor_sync_s("powersgd", 4, b, kLink); };
  buckets = buckets_of(c, powersgd, plain, kLink);
  EXPECT_DOUBLE_EQ(buckets[0].seconds, 0.5 * 0.15 + 0.5 * plain(5e6));
  EXPECT_DOUBLE_EQ(buckets[0].cpu_s, 0.5 * 0.2 + 0.5 * 0.5);
}

TEST(MeasuredCost, StraightLinesBetweenTheSweepsSizes) {
  const MeasuredCost m{{1, 3, 5}, {1, 2, 6}, {}, {}, {}, 0, {}};
  EXPECT_DOUBLE_EQ(m.time(0.5), 1);  // below the smallest: its time
  EXPECT_DOUBLE_EQ(m.time(2), 1.5);
  EXPECT_DOUBLE_EQ(m.time(3), 2);
  EXPECT_DOUBLE_EQ(m.time(4), 4);
  EXPECT_DOUBLE_EQ(m.time(7), 10);  // beyond the largest: the last segment's slope
  EXPECT_DOUBLE_EQ(MeasuredCost{}.time(7), 0);
}

// A size measured more than twice as slow as a larger one is noise: it takes the least time of
// the larger sizes, and says so; a size up to twice as slow keeps its time.
TEST(MeasuredCost, ASizeFarSlowerThanALargerOneIsReadAsNoise) {
  MeasuredCost m{{64, 256, 1024, 4096, 16384}, {1e-5, 4e-4, 1.1e-3, 2e-5, 6e-5}, {}, {}, {}, 0, {}};
  read_out_noise(m);
  EXPECT_EQ(m.noisy_bytes, (std::vector<double>{256, 1024}));
  EXPECT_EQ(m.seconds, (std::vector<double>{1e-5, 2e-5, 2e-5, 2e-5, 6e-5}));
  MeasuredCost kept{{16, 64, 256}, {2.7e-3, 2.5e-3, 1.5e-3}, {}, {}, {}, 0, {}};
  read_out_noise(kept);
  EXPECT_TRUE(kept.noisy_bytes.empty());
  EXPECT_EQ(kept.seconds, (std::vector<double>{2.7e-3, 2.5e-3, 1.5e-3}));
}

TEST(LinkFit, RecoversTheLineAndTheRingsLink) {
  // A ring allreduce on 4 ranks over kLink, at sizes 4 KiB..64 MiB.
  std::vector<double> bytes, seconds;
  for (double b = 4096; b <= 64.0 * 1024 * 1024; b *= 4) {
    bytes.push_back(b);
    seconds.push_back(ring_allreduce_s(4, b, kLink));
  }
  const Line line = fit_line_relative(bytes, seconds);
  EXPECT_NEAR(line.alpha, 6e-4, 1e-9);    // 2(n-1) a
  EXPECT_NEAR(line.beta, 1.5e-8, 1e-14);  // 2(n-1)/n / B
  const Link link = link_of_ring_fit(4, line.alpha, line.beta);
  EXPECT_NEAR(link.latency_s, kLink.latency_s, 1e-9);
  EXPECT_NEAR(link.bytes_per_s, kLink.bytes_per_s, 1e2);
  EXPECT_THROW(fit_line_relative({1, 1}, {2, 3}), std::invalid_argument);
}

}  // namespace
}  // namespace dtbench::model
