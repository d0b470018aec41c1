#pragma once
// Errors that a user caused (a bad option, a missing or corrupt dataset) are UserError:
// main() prints them as one line and exits with code 2. Anything else is a bug or an
// environment failure and exits with code 1.
#include <stdexcept>
#include <string>

namespace dtbench {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws UserError(message) unless condition holds.
inline void require(bool condition, const std::string& message) {
  if (!condition) throw UserError(message);
}

}  // namespace dtbench
