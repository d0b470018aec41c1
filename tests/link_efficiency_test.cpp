// Link efficiency on a made-up sweep of known rate: the library allreduce's bus bandwidth at
// the largest size against the emulated cluster's stated rate, n1/2 from the fitted ring, and
// the bandwidth at the buckets a training run sent.
#include "report/predict/link_efficiency.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/predict/model_inputs.h"

namespace dtbench {
namespace {

using ::testing::HasSubstr;

// The link efficiency of a Gloo allreduce on 4 ranks taking alpha + beta S (a ring: 2(n-1)/n S
// crosses each link), on a cluster shaped to `rate`.
// On a real cluster (hosts_rate not empty), the hosts file stated the rate instead.
std::vector<LinkEfficiency> swept(double alpha_s, double beta_s_per_byte, const std::string& rate,
                                  const std::string& hosts_rate = "") {
  SystemResults s;
  s.system = {{"network",
               {{"spec",
                 {{"bottleneck_host", -1},
                  {"bottleneck_rate", "100mbit"},
                  {"delay", "none"},
                  {"hosts", 4},
                  {"prefix", "dtb-"},
                  {"rate", rate},
                  {"subnet", "10.99.0"}}}}}};
  if (!hosts_rate.empty()) {
    s.system = {{"network", "the machines' own network"}, {"stated_link_rate", hosts_rate}};
  }
  for (int64_t bytes : {int64_t{1} << 16, int64_t{1} << 20, int64_t{1} << 24, int64_t{1} << 26}) {
    CollectiveRun c;
    c.op = "allreduce";
    c.backend = "gloo";
    c.ranks = 4;
    c.bytes = bytes;
    c.time_s = alpha_s + beta_s_per_byte * static_cast<double>(bytes);
    c.busbw = 1.5 * static_cast<double>(bytes) / c.time_s;
    s.collectives.push_back(c);
  }
  return link_efficiency(s);
}

TEST(LinkEfficiency, BusBandwidthAgainstTheStatedRate) {
  const double rate = payload_bytes_per_s("1gbit");
  // busbw tends to 1.5 / beta: make it 95% of the rate at large sizes.
  const double beta = 1.5 / (0.95 * rate);
  const auto found = swept(1e-3, beta, "1gbit");
  ASSERT_EQ(found.size(), 1u);
  const LinkEfficiency& e = found[0];
  EXPECT_EQ(e.bytes, int64_t{1} << 26);
  const double t = 1e-3 + beta * static_cast<double>(e.bytes);
  EXPECT_NEAR(e.busbw, 1.5 * static_cast<double>(e.bytes) / t, 1e-6);
  EXPECT_NEAR(e.efficiency(), e.busbw / rate, 1e-12);
  EXPECT_GT(e.efficiency(), SlowHosts::kSlowShare);
  // The ring's half-bandwidth size: alpha / beta.
  EXPECT_NEAR(e.n_half_bytes, 1e-3 / beta, 1e-6 * (1e-3 / beta));
  EXPECT_THAT(link_efficiency_text(e), HasSubstr("of the emulated cluster's 1gbit"));
  EXPECT_THAT(link_efficiency_text(e), HasSubstr(": normal"));
}

TEST(LinkEfficiency, ASlowSweepIsBelowNormalAndNoRateIsSaid) {
  const double rate = payload_bytes_per_s("1gbit");
  const auto slow = swept(1e-3, 1.5 / (0.5 * rate), "1gbit");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_LT(slow[0].efficiency(), 0.5);
  EXPECT_THAT(link_efficiency_text(slow[0]), HasSubstr("below normal"));
  const auto unshaped = swept(1e-3, 1e-9, "none");
  ASSERT_EQ(unshaped.size(), 1u);
  EXPECT_EQ(unshaped[0].rate, 0);
  EXPECT_THAT(link_efficiency_text(unshaped[0]), HasSubstr("no link rate stated"));
}

TEST(LinkEfficiency, ARealClusterIsHeldToItsHostsFilesRate) {
  const double rate = payload_bytes_per_s("10gbit");
  const auto found = swept(1e-4, 1.5 / (0.9 * rate), "", "10gbit");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].rate, rate, 1e-6);
  EXPECT_GT(found[0].efficiency(), SlowHosts::kSlowShare);
  EXPECT_THAT(link_efficiency_text(found[0]), HasSubstr("of the hosts file's 10gbit"));
}

}  // namespace
}  // namespace dtbench
