#pragma once
#include <string>

namespace dtbench {

// A TCP port free on this host right now (the kernel's pick for port 0). CommError if there is
// none to be had.
int free_port();

// Whether a TCP connection to ipv4:port is accepted within timeout_ms.
bool accepts_connections(const std::string& ipv4, int port, int timeout_ms);

}  // namespace dtbench
