// The trainer's start-up probe on Gloo ranks as threads: every rank reads the same clock, so each
// offset must lie within its stated uncertainty of zero, and the common origin is one instant;
// links are measured only between ranks on different hosts, each pair once.
#include "train/start_probe.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <mutex>

#include "thread_ranks.h"

namespace dtbench::testing {
namespace {

TEST(StartProbe, OffsetsOnOneClockLieWithinTheirUncertainty) {
  std::mutex mutex;
  std::vector<std::vector<ClockOffset>> seen;
  std::vector<std::chrono::steady_clock::time_point> origins;
  run_gloo_ranks(3, [&](Communicator& comm) {
    auto offsets = measure_clock_offsets(comm, 5);
    auto origin = common_origin(comm, offsets);
    std::lock_guard<std::mutex> lock(mutex);
    seen.push_back(offsets);
    origins.push_back(origin);
  });
  ASSERT_EQ(seen.size(), 3u);
  for (const auto& offsets : seen) {
    ASSERT_EQ(offsets.size(), 3u);
    EXPECT_EQ(offsets[0].offset_s, 0);
    for (const auto& o : offsets) {
      const auto& first = seen[0][&o - offsets.data()];
      EXPECT_EQ(o.offset_s, first.offset_s) << "every rank gets the same offsets";
      EXPECT_EQ(o.uncertainty_s, first.uncertainty_s);
      EXPECT_GE(o.uncertainty_s, 0);
      // The reading was taken inside the round trip, on the same clock: the true offset is 0.
      EXPECT_LE(std::abs(o.offset_s), o.uncertainty_s + 1e-9);
    }
  }
  for (const auto& origin : origins) {
    const double apart = std::chrono::duration<double>(origin - origins[0]).count();
    EXPECT_LE(std::abs(apart), seen[0][1].uncertainty_s + seen[0][2].uncertainty_s + 1e-9);
  }
}

TEST(StartProbe, LinksOnlyBetweenHostsEachPairOnce) {
  std::mutex mutex;
  std::vector<std::vector<LinkSample>> seen;
  run_gloo_ranks(4, [&](Communicator& comm) {
    // Ranks 0 and 1 share host a, 2 and 3 host b: of the ring 0-1, 1-2, 2-3, 3-0 only 1-2 and
    // 0-3 cross between hosts.
    auto links = measure_links(comm, {"a", "a", "b", "b"}, 4096);
    std::lock_guard<std::mutex> lock(mutex);
    seen.push_back(links);
  });
  for (const auto& links : seen) {
    ASSERT_EQ(links.size(), 2u);
    EXPECT_EQ(links[0].a, 1);
    EXPECT_EQ(links[0].b, 2);
    EXPECT_EQ(links[1].a, 0);
    EXPECT_EQ(links[1].b, 3);
    for (const auto& l : links) {
      EXPECT_EQ(l.bytes, 4096);
      EXPECT_GT(l.seconds, 0);
      EXPECT_EQ(l.seconds, seen[0][&l - links.data()].seconds) << "every rank gets the same";
    }
  }
  run_gloo_ranks(2, [&](Communicator& comm) {
    EXPECT_TRUE(measure_links(comm, {"a", "a"}, 4096).empty()) << "one host: nothing to measure";
    EXPECT_EQ(measure_links(comm, {"a", "b"}, 4096).size(), 1u) << "two ranks: one pair";
  });
}

}  // namespace
}  // namespace dtbench::testing
