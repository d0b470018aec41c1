#pragma once

namespace dtbench {

// A TCP port free on this host right now (the kernel's pick for port 0). CommError if there is
// none to be had.
int free_port();

}  // namespace dtbench
