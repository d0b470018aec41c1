#pragma once
// The communication backends a run can name (--backend), as plain data: launch.h connects to one.
#include <string>
#include <vector>

namespace dtbench {

struct BackendSpec {
  std::string name;
  std::string description;
};
const std::vector<BackendSpec>& backend_registry();

// The worker threads of the Gloo process group a run opens: Gloo runs that many of its
// asynchronous operations (the bucketed engines' allreduces) at once.
inline constexpr int kGlooThreads = 2;

}  // namespace dtbench
