#pragma once
// Lookup in the project's registry tables (models, datasets, strategies): rows with a `name`.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "common/error.h"

namespace dtbench {

// The row called name; a UserError "unknown <what> '<name>' (known: a, b, c)" otherwise.
template <typename Spec>
const Spec& find_by_name(const std::vector<Spec>& registry, const std::string& name,
                         const char* what) {
  std::vector<std::string> known;
  for (const auto& spec : registry) {
    if (spec.name == name) return spec;
    known.push_back(spec.name);
  }
  throw UserError(fmt::format("unknown {} '{}' (known: {})", what, name, fmt::join(known, ", ")));
}

}  // namespace dtbench
