#pragma once
#include <string>

#include "common/text.h"

namespace dtbench {

// The commit this binary was built from ("<sha>[-dirty]" or "unknown"); generated at build time.
const char* git_commit();

// Whether a recorded commit names a build with uncommitted changes ("<sha>-dirty"): the code
// that made its results is not in git.
inline bool is_dirty_commit(const std::string& commit) {
  return ends_with(commit, "-dirty");
}

}  // namespace dtbench
