#pragma once
// Number checks for every dtbench command line. CLI11's own (CLI::PositiveNumber) answer a value
// that is not a number with the whole range of a double; these say what is wrong in a few words.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <string>

namespace dtbench {

// desc: what --help shows after the type (INT:POSITIVE).
inline CLI::Validator number_at_least(double low, bool low_allowed, const std::string& desc) {
  return CLI::Validator(
      [low, low_allowed](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) {
          return fmt::format("'{}' is not a number", text);
        }
        if (!std::isfinite(value)) return fmt::format("{} is not a finite number", text);
        if (value < low || (!low_allowed && value == low)) {
          return fmt::format("{} is not {} {}", text, low_allowed ? ">=" : ">", low);
        }
        return "";
      },
      desc);
}

// In (0, 1]: a share.
inline CLI::Validator fraction() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) {
          return fmt::format("'{}' is not a number", text);
        }
        if (!(value > 0 && value <= 1)) return fmt::format("{} is not in (0, 1]", text);
        return "";
      },
      "FRACTION");
}

inline CLI::Validator positive() {
  return number_at_least(0, false, "POSITIVE");
}
inline CLI::Validator non_negative() {
  return number_at_least(0, true, "NONNEGATIVE");
}

}  // namespace dtbench
