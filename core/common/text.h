#pragma once
// Small text helpers shared across the code.
#include <sstream>
#include <string>
#include <vector>

#include "common/units.h"

namespace dtbench {

// A size as a user reads it: "4 MiB", "256 KiB", else "40320 bytes".
inline std::string binary_size_text(int64_t bytes) {
  constexpr int64_t kKiB = 1024;
  if (bytes > 0 && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes > 0 && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " bytes";
}

// Whether text is a stem of at least one character followed by suffix ("trace.json.gz" and
// ".gz"; not ".gz" itself).
inline bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The whitespace-separated words of text.
inline std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The last line of text that is not empty ("" for none): a log's final word.
inline std::string last_line(const std::string& text) {
  const size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

}  // namespace dtbench
