#pragma once
#include <optional>

#include "train/config.h"

namespace dtbench {

// Parses dtbench-train's command line into a resolved TrainConfig (the model's learning rate,
// momentum, weight decay and dataset filled in where not given). Returns nullopt after
// printing --help. Throws UserError with a one-line message for an unknown option or an
// invalid value.
std::optional<TrainConfig> parse_train_cli(int argc, const char* const* argv);

}  // namespace dtbench
