// What the trainer's start-up probe found, in words: the host whose links are all slow is named,
// healthy links name none, and the clocks' alignment is the worst rank's uncertainty plus drift.
#include "record/start_facts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/units.h"

namespace dtbench {
namespace {

using ::testing::HasSubstr;

// One rank per host h0..h(n-1), and a ring of links, pair k (k, k+1) taking seconds[k].
RunRecord ring_of(const std::vector<double>& seconds) {
  RunRecord record;
  const int n = static_cast<int>(seconds.size());
  for (int r = 0; r < n; ++r) {
    RankUsage rank;
    rank.rank = r;
    rank.host = "h" + std::to_string(r);
    record.ranks.push_back(rank);
  }
  for (int k = 0; k < n; ++k) {
    const int a = k, b = (k + 1) % n;
    record.links.push_back({std::min(a, b), std::max(a, b), kMiB, seconds[k]});
  }
  return record;
}

TEST(StartFacts, TheHostWhoseLinksAreAllSlowIsNamed) {
  // h2's two links take ten times as long as the others: 2 MiB in 0.2 s against 0.02 s.
  const LinkFinding f = link_finding(ring_of({0.02, 0.2, 0.2, 0.02}));
  EXPECT_EQ(f.slow_host, "h2");
  EXPECT_NEAR(f.slow_bytes_per_s, 2.0 * kMiB / 0.2, 1);
  EXPECT_NEAR(f.others_bytes_per_s, 2.0 * kMiB / 0.02, 1);
  const std::string text = link_finding_text(f);
  EXPECT_THAT(text, HasSubstr("(1 MiB each way): h0/h1 104.9 MB/s, h1/h2 10.5 MB/s"));
  EXPECT_THAT(text, HasSubstr("; h2 is slow: 10.5 MB/s at most against 104.9 MB/s"));
}

TEST(StartFacts, OneSlowLinkOrEvenLinksNameNoHost) {
  // One slow link: both its hosts have a fast link as well.
  EXPECT_EQ(link_finding(ring_of({0.02, 0.2, 0.02, 0.02})).slow_host, "");
  const LinkFinding even = link_finding(ring_of({0.02, 0.021, 0.022, 0.02}));
  EXPECT_EQ(even.slow_host, "");
  EXPECT_THAT(link_finding_text(even), HasSubstr("; none stands out"));
  // Two hosts: one link, nothing to compare it with.
  RunRecord two = ring_of({0.2, 0.2});
  two.links.pop_back();
  EXPECT_EQ(link_finding(two).slow_host, "");
  EXPECT_THAT(link_finding_text(link_finding(two)), HasSubstr("h0/h1 10.5 MB/s"));
  EXPECT_EQ(link_finding_text(link_finding(RunRecord{})), "");
}

TEST(StartFacts, ClockAlignmentIsTheWorstUncertaintyPlusDrift) {
  RunRecord record = ring_of({0.02, 0.02, 0.02});
  record.ranks[1].clock = {5.0, 20e-6, -10e-6};
  record.ranks[2].clock = {-3.0, 25e-6, 1e-6};
  EXPECT_THAT(clock_alignment_text(record), HasSubstr("to within 0.030 ms"));
  record.ranks.resize(1);
  EXPECT_EQ(clock_alignment_text(record), "");
}

}  // namespace
}  // namespace dtbench
