#pragma once

namespace dtbench {

// The commit this binary was built from ("<sha>[-dirty]" or "unknown"); generated at build time.
const char* git_commit();

}  // namespace dtbench
