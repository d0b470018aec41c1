#pragma once
// Small text tests shared across the code.
#include <string>

namespace dtbench {

// Whether text is a stem of at least one character followed by suffix ("trace.json.gz" and
// ".gz"; not ".gz" itself).
inline bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace dtbench
