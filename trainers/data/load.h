#pragma once
#include <string>

#include "data/dataset.h"

namespace dtbench {

// The split of the catalogue's dataset called name (datasets.h), read from its official files
// in data_dir. UserError naming the file for a missing or corrupt one, or an unknown name.
Dataset load_dataset(const std::string& name, const std::string& data_dir, Split split);

}  // namespace dtbench
