#include "record/nic_counters.h"

#include <fstream>
#include <sstream>

namespace dtbench {

std::map<std::string, NicBytes> read_nic_counters() {
  // Two header lines, then "iface: rx_bytes rx_packets ... (8 rx fields) tx_bytes ...".
  std::map<std::string, NicBytes> counters;
  std::ifstream in("/proc/net/dev");
  std::string line;
  for (int i = 0; i < 2 && std::getline(in, line); ++i) {
  }
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    std::istringstream fields(line.substr(colon + 1));
    int64_t value = 0;
    NicBytes bytes;
    for (int field = 0; field < 9 && fields >> value; ++field) {
      if (field == 0) bytes.received = value;
      if (field == 8) bytes.sent = value;
    }
    counters[name] = bytes;
  }
  return counters;
}

std::map<std::string, NicBytes> nic_delta(const std::map<std::string, NicBytes>& before,
                                          const std::map<std::string, NicBytes>& after) {
  std::map<std::string, NicBytes> delta;
  for (const auto& [name, now] : after) {
    auto then = before.find(name);
    NicBytes start = then == before.end() ? NicBytes{} : then->second;
    delta[name] = {now.sent - start.sent, now.received - start.received};
  }
  return delta;
}

}  // namespace dtbench
