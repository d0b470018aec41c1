#pragma once
// Reading the variables a launcher sets (mpirun, srun, PMIx): plain text or a positive count.
#include <cstdlib>
#include <string>

namespace dtbench {

// The variable's value, "" when unset.
inline std::string env_text(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// text as a count above 0; 0 when it is empty, not a whole number, or not positive.
inline int positive_count(const std::string& text) {
  char* end = nullptr;
  const long n = std::strtol(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0' && n > 0 ? static_cast<int>(n) : 0;
}

}  // namespace dtbench
