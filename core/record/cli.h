#pragma once
#include <optional>
#include <string>
#include <vector>

#include "record/config.h"

namespace dtbench {

// Parses dtbench-train's command line into a resolved TrainConfig (the model's learning rate,
// momentum, weight decay and dataset filled in where not given). Returns nullopt after
// printing --help. Throws UserError with a one-line message for an unknown option or an
// invalid value.
std::optional<TrainConfig> parse_train_cli(int argc, const char* const* argv);

// The options parse_train_cli takes, as keys: the first long name with '_' for '-'
// ("global_batch" for --global-batch, "eval" for --eval/--no-eval), test-only ones left out.
// The harness checks matrices against them.
std::vector<std::string> train_option_keys();

}  // namespace dtbench
