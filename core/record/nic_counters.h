#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace dtbench {

struct NicBytes {
  int64_t sent = 0;
  int64_t received = 0;
};

// Bytes sent and received per network interface of this process's network namespace, from
// /proc/net/dev. Ranks sharing a namespace (e.g. all on localhost) share these counters.
std::map<std::string, NicBytes> read_nic_counters();

// after - before, per interface.
std::map<std::string, NicBytes> nic_delta(const std::map<std::string, NicBytes>& before,
                                          const std::map<std::string, NicBytes>& after);

}  // namespace dtbench
