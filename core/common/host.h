#pragma once
#include <unistd.h>

#include <string>

namespace dtbench {

// This host's name, as errors and per-rank records name it.
inline std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

}  // namespace dtbench
