#pragma once
// What the trainer measured before its first iteration (start_probe.h), read from the record
// and put in words: the links between the ranks' hosts, naming a host whose links are all slow
// while another link is not, and how well the ranks' clocks were aligned with rank 0's.
#include <string>
#include <vector>

#include "record/record.h"

namespace dtbench {

struct HostLink {
  std::string a, b;  // the hosts of the pair's ranks
  double bytes_per_s = 0;
};

struct LinkFinding {
  std::vector<HostLink> links;  // in the record's order
  int64_t bytes = 0;            // each way, per round trip
  // A host every one of whose links ran slow against the fastest link (slow_hosts() in
  // common/links.h: "" if none, or if every host is): its fastest link, and the other hosts'
  // (the median of their fastest links).
  std::string slow_host;
  double slow_bytes_per_s = 0, others_bytes_per_s = 0;
};

LinkFinding link_finding(const RunRecord& record);

// "dtb-n2 is slow: 11.6 MB/s at most against 117.2 MB/s between other hosts"; "" when no host
// stands out.
std::string slow_host_text(const LinkFinding& f);

// "links between hosts at start-up (1 MiB each way): n0/n1 117.2 MB/s, n1/n2 11.6 MB/s, ...;
// n2 is slow: 11.6 MB/s at most against 117.2 MB/s between other hosts" (or "...; none stands
// out"); "" when no link was measured (every rank on one host, or a dtbench.run/1 record).
std::string link_finding_text(const LinkFinding& f);

// How far any rank's times may be off rank 0's: the largest offset uncertainty plus drift (0 for
// none, or offsets a dtbench.run/1 record may lack).
double worst_misalignment_s(const std::vector<ClockOffset>& clocks);
double worst_misalignment_s(const RunRecord& record);

// The largest of the ranks' offset uncertainty plus drift (how far a rank's trace times may be
// off rank 0's), with a sentence: "the ranks' clocks were aligned with rank 0's to within
// 0.042 ms (offsets measured at start-up, drift by the last iteration included)"; "" with one
// rank or without offsets (a dtbench.run/1 record).
std::string clock_alignment_text(const RunRecord& record);

}  // namespace dtbench
