// Link facts have one home (common/links.h): the payload a line rate carries, the rate a cluster
// states (a bottleneck host's links at its own rate), and one rule for a slow host, which the
// doctor (one-way links against the stated rate) and the trainer's start-up probe (round trips
// against the fastest) both apply, so that they name the same host.
#include "common/links.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/units.h"
#include "doctor/doctor.h"
#include "record/start_facts.h"

namespace dtbench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Links, PayloadIsTheLineRateLessTcpsHeaders) {
  EXPECT_NEAR(payload_bytes_per_s("1gbit"), 1e9 / 8 * 1448 / 1514, 1);
  EXPECT_DOUBLE_EQ(payload_bytes_per_s("100mbit"), payload_bytes_per_s(100e6));
  EXPECT_LT(payload_bytes_per_s("1gbit"), 125e6);
}

TEST(Links, TheStatedRateKeepsTheBottleneckHostApart) {
  ClusterSpec spec;
  spec.rate = "1gbit";
  spec.bottleneck_host = 2;
  const StatedRate s = stated_rate(spec, "");
  EXPECT_DOUBLE_EQ(s.link_bytes_per_s, payload_bytes_per_s("1gbit"));
  EXPECT_DOUBLE_EQ(s.slowest_bytes_per_s, payload_bytes_per_s("100mbit"));
  EXPECT_EQ(s.source, "the emulated cluster's 1gbit, host 2 at 100mbit");
  spec.rate = "none";
  EXPECT_EQ(stated_rate(spec, "").link_bytes_per_s, 0);
  const StatedRate file = stated_rate(std::nullopt, "10gbit");
  EXPECT_DOUBLE_EQ(file.slowest_bytes_per_s, payload_bytes_per_s("10gbit"));
  EXPECT_EQ(file.source, "the hosts file's 10gbit");
  EXPECT_EQ(stated_rate(std::nullopt, "").source, "");
  // system.json: the emulated cluster's spec, else the hosts file's rate.
  const nlohmann::json system = {{"network", {{"spec", spec.to_json()}}}};
  EXPECT_EQ(stated_rate(system).link_bytes_per_s, 0);
  EXPECT_EQ(stated_rate(nlohmann::json{{"stated_link_rate", "10gbit"}}).source,
            "the hosts file's 10gbit");
}

TEST(Links, TheEmulatedClustersLinksAreTokenBuckets) {
  // What `cluster up` shapes with: 32 KiB at 100 Mbit/s, 2 ms of traffic at 1 Gbit/s.
  EXPECT_EQ(tbf_burst_bytes(100e6), 32768);
  EXPECT_EQ(tbf_burst_bytes(1e9), 250000);
  ClusterSpec spec;
  spec.rate = "1gbit";
  spec.bottleneck_host = 2;
  const StatedRate s = stated_rate(spec, "");
  EXPECT_NEAR(s.link_burst_bytes, 250000.0 * 1448 / 1514, 1e-6);
  EXPECT_NEAR(s.slowest_burst_bytes, 32768.0 * 1448 / 1514, 1e-6);
  // A real cluster's links, as a hosts file states them: no bucket.
  EXPECT_EQ(stated_rate(std::nullopt, "10gbit").link_burst_bytes, 0);
}

TEST(Links, AHostIsSlowWhenAllItsLinksAreUnderTheShare) {
  // Four hosts, every pair; host 1's links at 0.6 of the others' (under 0.7).
  std::vector<MeasuredLink> links;
  for (int a = 0; a < 4; ++a) {
    for (int b = a + 1; b < 4; ++b) links.push_back({a, b, a == 1 || b == 1 ? 60e6 : 100e6});
  }
  const SlowHosts slow = slow_hosts(4, links, 0);
  EXPECT_DOUBLE_EQ(slow.reference, 100e6);
  EXPECT_THAT(slow.slow, ElementsAre(1));
  EXPECT_NEAR(slow.host_share[1], 0.6, 1e-12);
  EXPECT_DOUBLE_EQ(slow.others_share(), 1.0);
  // At 0.8 of them, it is not; against a stated rate twice theirs, every host is.
  for (auto& l : links) {
    if (l.a == 1 || l.b == 1) l.bytes_per_s = 80e6;
  }
  EXPECT_TRUE(slow_hosts(4, links, 0).slow.empty());
  EXPECT_TRUE(slow_hosts(4, links, 200e6).all());
  EXPECT_TRUE(is_slow(69, 100));
  EXPECT_FALSE(is_slow(70, 100));
  EXPECT_FALSE(is_slow(1, 0));
}

TEST(Links, TheDoctorAndTheStartUpProbeNameTheSameHost) {
  // A ring of four hosts, host 2's links at 0.6 of the others': the start-up probe's round trips
  // of 1 MiB each way, the doctor's one-way rates.
  const std::vector<double> seconds = {0.02, 0.02 / 0.6, 0.02 / 0.6, 0.02};
  RunRecord record;
  std::vector<MeasuredLink> one_way;
  for (int r = 0; r < 4; ++r) {
    RankUsage rank;
    rank.rank = r;
    rank.host = "h" + std::to_string(r);
    record.ranks.push_back(rank);
    const int a = std::min(r, (r + 1) % 4), b = std::max(r, (r + 1) % 4);
    record.links.push_back({a, b, kMiB, seconds[static_cast<size_t>(r)]});
    one_way.push_back({a, b, 2.0 * kMiB / seconds[static_cast<size_t>(r)]});
  }
  EXPECT_EQ(link_finding(record).slow_host, "h2");
  const auto findings = judge_links({"h0", "h1", "h2", "h3"}, one_way, 0, "the fastest link seen");
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].verdict, "WARN");
  EXPECT_THAT(findings[0].text, HasSubstr("links: h2 is slow"));
}

}  // namespace
}  // namespace dtbench
