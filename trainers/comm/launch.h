#pragma once
#include <memory>
#include <string>
#include <vector>

#include "catalogue/backends.h"
#include "comm/communicator.h"

namespace dtbench {

// How this process joins its world.
struct LaunchOptions {
  std::string backend = "auto";  // auto: mpi under mpirun or srun --mpi=pmix, else self
  std::string master;            // gloo rendezvous "host:port"; empty: found through mpirun
  int world_size = 0;            // gloo without mpirun: required with master
  int rank = -1;
  int timeout_s = 300;  // a peer silent for this long is an error, not a hang
};

// Connects to the world as the options say. UserError for inconsistent options, CommError
// when the rendezvous fails.
std::unique_ptr<Communicator> connect(const LaunchOptions& options);

}  // namespace dtbench
