#pragma once
// Errors that a user caused (a bad option, a missing or corrupt dataset) are UserError:
// main() prints them as one line and exits with code 2. RunError exits with 3; anything else
// is a bug and exits with code 1.
#include <stdexcept>
#include <string>

namespace dtbench {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A UserError that the arguments alone decide (an unknown option, a batch that does not divide
// by the ranks): every rank launched with the same arguments finds it at once, so only the first
// rank of a launch prints it (main_guard.h).
class ArgumentError : public UserError {
 public:
  using UserError::UserError;
};

// Runs check; a UserError it throws becomes an ArgumentError with the same message.
template <class Check>
void as_argument_check(Check&& check) {
  try {
    check();
  } catch (const ArgumentError&) {
    throw;
  } catch (const UserError& e) {
    throw ArgumentError(e.what());
  }
}

// A run that could not complete for a reason outside the program and its input: a peer died,
// the network stopped, replicas diverged. main() prints one line and exits with code 3.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failed or timed-out communication (a peer died, the network stopped).
class CommError : public RunError {
 public:
  using RunError::RunError;
};

// The first line of a library's message (c10 and Gloo append context and backtraces).
inline std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// Throws UserError(message) unless condition holds.
inline void require(bool condition, const std::string& message) {
  if (!condition) throw UserError(message);
}

}  // namespace dtbench
