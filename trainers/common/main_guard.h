#pragma once
#include <functional>

namespace dtbench {

// Runs body and turns every exception into one line on stderr, prefixed by program:
// UserError -> exit code 2, RunError -> 3, anything else -> 1 (no stack traces reach the user).
int guarded_main(const char* program, const std::function<int()>& body);

}  // namespace dtbench
