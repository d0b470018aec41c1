#pragma once
#include <string>

#include "models/classifier.h"

namespace dtbench {

// A new, freshly initialised instance of the catalogue's model called name (models.h).
// UserError listing the known names otherwise.
Classifier make_model(const std::string& name);

}  // namespace dtbench
