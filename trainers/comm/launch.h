#pragma once
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.h"

namespace dtbench {

// How this process joins its world.
struct LaunchOptions {
  std::string backend = "auto";  // auto: mpi under mpirun, else self
  std::string master;            // gloo rendezvous "host:port"; empty: found through mpirun
  int world_size = 0;            // gloo without mpirun: required with master
  int rank = -1;
  int timeout_s = 300;  // a peer silent for this long is an error, not a hang
};

struct BackendSpec {
  std::string name;
  std::string description;
};
const std::vector<BackendSpec>& backend_registry();

// A TCP port free on this host right now (the kernel's pick for port 0). CommError if there is
// none to be had.
int free_port();

// Connects to the world as the options say. UserError for inconsistent options, CommError
// when the rendezvous fails.
std::unique_ptr<Communicator> connect(const LaunchOptions& options);

}  // namespace dtbench
