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

}  // namespace dtbench
