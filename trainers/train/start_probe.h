#pragma once
// What the trainer measures before its first iteration and after its last, off the timed path,
// over its control communicator (docs/result-record.md, "clock" and "links"): each rank's clock
// against rank 0's, so that traces from different hosts line up, and the links between the
// ranks' hosts, so that a slow one can be named.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "record/record.h"

namespace dtbench {

// Collective. Per rank, its steady clock minus rank 0's: rank 0 sends each other rank a stamp
// `rounds` times, the rank answers with its clock's reading, and the round with the shortest
// round trip gives the offset (the reading minus the round trip's middle) and its uncertainty
// (half the round trip: the reading was taken inside it). drift_s is 0. Every rank gets all.
std::vector<ClockOffset> measure_clock_offsets(Communicator& comm, int rounds = 10);

// Collective: a moment shortly after the call, read on each rank's own clock (rank 0's reading
// plus the rank's offset): the trace's origin, the same instant on every rank to within its
// offset's uncertainty.
std::chrono::steady_clock::time_point common_origin(Communicator& comm,
                                                    const std::vector<ClockOffset>& offsets);

// Collective. For each pair of neighbours in rank order (a ring: 0-1, 1-2, ..., n-1 - 0; one
// pair for two ranks) on different hosts (hosts[rank]), one after the other: `bytes` from the
// lower rank to the other and back, `rounds` times, the shortest kept. Every rank gets all.
std::vector<LinkSample> measure_links(Communicator& comm, const std::vector<std::string>& hosts,
                                      int64_t bytes, int rounds = 2);

}  // namespace dtbench
