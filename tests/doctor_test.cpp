// The doctor's judgements on made-up answers: builds and data compared with this machine's, and
// links against a stated rate or the fastest seen, with the slow host or link named.
#include "doctor/doctor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dtbench {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> texts(const std::vector<Finding>& findings, const std::string& verdict) {
  std::vector<std::string> out;
  for (const auto& f : findings) {
    if (f.verdict == verdict) out.push_back(f.text);
  }
  return out;
}

const std::vector<std::string> kNames = {"n0", "n1", "n2", "n3"};

// Every ordered pair of the 4 hosts at `rate`, except those touching `slow_host` at `slow`.
std::vector<MeasuredLink> links(double rate, int slow_host = -1, double slow = 0) {
  std::vector<MeasuredLink> out;
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      if (a != b) out.push_back({a, b, a == slow_host || b == slow_host ? slow : rate});
    }
  }
  return out;
}

TEST(Doctor, ASlowHostIsNamedWithoutBeingTold) {
  const auto findings = judge_links(kNames, links(120e6, 2, 12e6), 125e6, "the cluster's 1gbit");
  const auto warned = texts(findings, "WARN");
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_THAT(warned[0],
              HasSubstr("n2 is slow: its links at 12.0 MB/s at most, 10% of 125.0 MB/s"));
  EXPECT_THAT(warned[0], HasSubstr("the other hosts' 96%"));
  EXPECT_TRUE(all_pass(findings));  // a warning, not a failure
}

TEST(Doctor, WithoutAStatedRateTheFastestLinkIsTheReference) {
  const auto warned = texts(judge_links(kNames, links(120e6, 0, 30e6), 0, "the fastest"), "WARN");
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_THAT(warned[0], HasSubstr("n0 is slow"));
  EXPECT_THAT(warned[0], HasSubstr("25% of 120.0 MB/s, the fastest"));
}

TEST(Doctor, ASlowLinkBetweenHealthyHostsIsNamedByItsEnds) {
  std::vector<MeasuredLink> all = links(120e6);
  for (auto& l : all) {
    if (l.a == 1 && l.b == 3) l.bytes_per_s = 40e6;
  }
  const auto warned = texts(judge_links(kNames, all, 125e6, "stated"), "WARN");
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_THAT(warned[0], HasSubstr("n1 -> n3 at 40.0 MB/s, 32% of 125.0 MB/s"));
}

TEST(Doctor, HealthyLinksPassAndEveryLinkSlowIsOneWarning) {
  const auto fine = judge_links(kNames, links(118e6), 125e6, "stated");
  ASSERT_EQ(texts(fine, "PASS").size(), 1u);
  EXPECT_THAT(texts(fine, "PASS")[0], HasSubstr("12 directions between 4 hosts"));
  const auto slow = texts(judge_links(kNames, links(50e6), 125e6, "stated"), "WARN");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_THAT(slow[0], HasSubstr("every host's links are slow: median 50.0 MB/s, 40%"));
  EXPECT_THAT(texts(judge_links({"only"}, {}, 0, "x"), "PASS")[0], HasSubstr("one host"));
}

TEST(Doctor, AnotherBuildOrOtherDataFailsNamingTheHost) {
  const HostIdentity here{"a", "abc123", {{"mnist/t10k-images-idx3-ubyte.gz", "11"}}};
  HostIdentity dirty = here;
  dirty.commit = "abc123-dirty";
  HostIdentity without = here;
  without.data.clear();
  HostIdentity other = here;
  other.data.begin()->second = "22";
  const auto findings = judge_hosts(here, {"h0", "h1", "h2", "h3"}, {here, dirty, without, other});
  const auto failed = texts(findings, "FAIL");
  ASSERT_EQ(failed.size(), 3u);
  EXPECT_THAT(failed[0], HasSubstr("build: h1 runs dtbench abc123-dirty, this machine abc123"));
  EXPECT_THAT(failed[1], HasSubstr("data: h2: mnist/t10k-images-idx3-ubyte.gz is missing"));
  EXPECT_THAT(failed[2], HasSubstr("data: h3: mnist/t10k-images-idx3-ubyte.gz differs"));
  EXPECT_FALSE(all_pass(findings));
  const auto alike = judge_hosts(here, {"h0", "h1"}, {here, here});
  EXPECT_TRUE(all_pass(alike));
  EXPECT_EQ(texts(alike, "PASS").size(), 2u);
  // No dataset here at all (no make data, no DATA_DIR): said, not passed as "0 files alike".
  const HostIdentity bare{"a", "abc123", {}};
  const auto none = texts(judge_hosts(bare, {"h0", "h1"}, {bare, bare}), "FAIL");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_THAT(none[0], HasSubstr("this machine has no dataset file"));
}

TEST(Doctor, ABlockedConnectionFailsNamingBothHosts) {
  const auto line =
      parse_blocked_line("dtbench-probe: blocked: 1 -> 3 (10.0.0.4:41235): no answer in 5000 ms");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->from, 1);
  EXPECT_EQ(line->to, 3);
  EXPECT_EQ(line->endpoint, "10.0.0.4:41235");
  EXPECT_EQ(line->why, "no answer in 5000 ms");
  EXPECT_FALSE(parse_blocked_line("dtbench-probe: measuring 1 <-> 3").has_value());
  const std::vector<std::string> names = {"h0", "h1", "h2", "h3"};
  const auto failed = texts(judge_ports(names, {*line}), "FAIL");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_THAT(failed[0], HasSubstr("ports: h1 cannot connect to h3 at 10.0.0.4:41235: no answer"));
  const auto open = judge_ports(names, {});
  EXPECT_TRUE(all_pass(open));
  EXPECT_THAT(texts(open, "PASS").at(0), HasSubstr("each of the 4 hosts"));
  const std::vector<BlockedPort> many(9, *line);
  const auto shown = texts(judge_ports(names, many), "FAIL");
  ASSERT_EQ(shown.size(), 7u);
  EXPECT_THAT(shown.back(), HasSubstr("3 more connections blocked"));
}

TEST(Doctor, ALaunchersWarningGivesWayToTheErrorAfterIt) {
  // Open MPI's ssh launcher may warn of a setpgid race before ssh's own error.
  const std::string refused =
      "[vm:24254] plm:ssh: Warning: setpgid(24257,24257) failed in parent with "
      "errno=Permission denied(13)\n"
      "------------------------------------------------------------\n"
      "ssh: connect to host dtbu-n2 port 22: Connection refused\n"
      "PRTE has lost communication with a remote daemon.\n";
  EXPECT_EQ(telling_line(refused), "ssh: connect to host dtbu-n2 port 22: Connection refused");
  EXPECT_EQ(telling_line("dtbench-probe: measuring 0 <-> 1\n[vm:1] plm:rsh: Warning: x\n"),
            "[vm:1] plm:rsh: Warning: x");
  EXPECT_EQ(telling_line("-----\n\n"), "");
}

TEST(Doctor, ThisMachineAnswersWithItsBuildAndItsDatasetFiles) {
  const HostIdentity me = HostIdentity::from_json(host_identity("/nonexistent"));
  EXPECT_FALSE(me.host.empty());
  EXPECT_FALSE(me.commit.empty());
  EXPECT_TRUE(me.data.empty());
}

}  // namespace
}  // namespace dtbench
