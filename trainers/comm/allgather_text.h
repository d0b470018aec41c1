#pragma once
#include <string>
#include <vector>

#include "comm/communicator.h"

namespace dtbench {

// Every rank's text, in rank order, on every rank (its length as int64, then its bytes as
// uint8: meant for small things like per-rank JSON and checksums).
std::vector<std::string> allgather_text(Communicator& comm, const std::string& text);

}  // namespace dtbench
