#pragma once
// What dtbench knows of links, in one place: the TCP payload a link's line rate carries, the rate
// a cluster states for its links, the one rule that calls a host's links slow, and the unit they
// are written in. The doctor, the trainer's start-up probe, the report's link efficiency and the
// cost model all read these.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/network_spec.h"

namespace dtbench {

// The TCP payload, in bytes/s, that a link of this line rate carries: 1448 bytes of every 1514
// on the wire (Ethernet, IP and TCP headers with timestamps). "1gbit" -> 119.6e6.
double payload_bytes_per_s(double line_bits_per_s);
double payload_bytes_per_s(const std::string& line_rate);

// The emulated cluster's token bucket (tc tbf) for a link of this line rate: its burst in bytes on
// the wire, at least 32 KiB (tbf needs a bucket of at least one MTU; about 2 ms of traffic keeps
// the rate smooth at 1 Gbit/s). `cluster up` shapes with it; the cost model reads it back.
int64_t tbf_burst_bytes(double line_bits_per_s);
// That bucket as TCP payload, for a link of this line rate ("100mbit" -> 31.3e3).
double burst_payload_bytes(const std::string& line_rate);

// The rate stated for a cluster's links, as TCP payload: the emulated cluster's shaped rate, or
// else the rate its hosts file writes (`#dtbench: links rate=10gbit`). A bottleneck host's links
// are stated at its own rate: `slowest` is what a collective over every host waits for. 0 and ""
// when none is stated (one machine, an unshaped cluster, a hosts file that says nothing).
struct StatedRate {
  double link_bytes_per_s = 0;     // every link but a bottleneck host's
  double slowest_bytes_per_s = 0;  // the slowest link stated, a bottleneck host's if any
  // The emulated cluster's links are token buckets: after an idle spell a link passes up to
  // this much TCP payload at once, then its rate (tbf_burst_bytes). 0: a link with no bucket
  // (a real cluster's, as a hosts file states it).
  double link_burst_bytes = 0, slowest_burst_bytes = 0;
  std::string
      source;  // "the emulated cluster's 1gbit, host 2 at 100mbit", "the hosts file's 10gbit"
};
StatedRate stated_rate(const std::optional<ClusterSpec>& cluster, const std::string& hosts_rate);
// The same from a results directory's system.json ("network", "stated_link_rate").
StatedRate stated_rate(const nlohmann::json& system);

// "117.2 MB/s": how a link's rate is written.
std::string mb_per_s(double bytes_per_s);

// One link's measured rate between two hosts (indices), one way or a round trip's.
struct MeasuredLink {
  int a = 0, b = 0;
  double bytes_per_s = 0;
};

// A host is slow when every one of its links ran under kSlowShare of the reference: the stated
// link rate if there is one, else the fastest link measured. (One slow link between two hosts
// that have fast links too makes neither slow: is_slow() names the link.)
struct SlowHosts {
  static constexpr double kSlowShare = 0.7;
  double reference = 0;            // bytes/s
  std::vector<double> host_share;  // per host: its fastest link / reference (0: no link)
  std::vector<int> slow;           // the slow hosts, in order
  bool all() const { return !slow.empty() && slow.size() == host_share.size(); }
  // The median share of the hosts that are not slow (0 if every host is).
  double others_share() const;
};
SlowHosts slow_hosts(int hosts, const std::vector<MeasuredLink>& links, double stated);

// Whether a rate (a link's, a collective's bus bandwidth) is slow against the reference.
inline bool is_slow(double bytes_per_s, double reference) {
  return reference > 0 && bytes_per_s < SlowHosts::kSlowShare * reference;
}

}  // namespace dtbench
