#pragma once
#include <string>
#include <vector>

#include "comm/communicator.h"

namespace dtbench {

// Every rank's text, in rank order, on every rank (the communicators move float32 only, so
// each byte travels as one float: meant for small things like per-rank JSON and checksums).
std::vector<std::string> allgather_text(Communicator& comm, const std::string& text);

}  // namespace dtbench
