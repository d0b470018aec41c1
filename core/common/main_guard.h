#pragma once
#include <functional>

namespace dtbench {

// Runs body and turns every exception into one line on stderr, prefixed by program:
// UserError -> exit code 2, RunError -> 3, anything else -> 1 (no stack traces reach the user).
// An ArgumentError is printed by the first rank of a launch only (mpirun's or srun's rank 0, or a
// process that no launcher started): the others exit with the same code, silent.
int guarded_main(const char* program, const std::function<int()>& body);

}  // namespace dtbench
