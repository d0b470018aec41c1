#pragma once
#include <memory>

#include "comm/communicator.h"

namespace dtbench {

// A world of one process: what a single-process run synchronises with.
std::unique_ptr<Communicator> make_self_communicator();

}  // namespace dtbench
