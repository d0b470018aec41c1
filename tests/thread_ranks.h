#pragma once
#include <functional>

#include "comm/communicator.h"

namespace dtbench::testing {

// Runs body on n ranks, each a thread of this process with its own Gloo communicator (over
// loopback) rendezvousing through one in-memory c10d::HashStore. Rethrows the first exception
// a rank threw, after every thread has ended.
void run_gloo_ranks(int n, const std::function<void(Communicator&)>& body);

}  // namespace dtbench::testing
