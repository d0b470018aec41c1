#include "catalogue/backends.h"

namespace dtbench {

const std::vector<BackendSpec>& backend_registry() {
  static const std::vector<BackendSpec> registry = {
      {"mpi", "OpenMPI's C API on MPI_COMM_WORLD (launch with mpirun)"},
      {"gloo", "libtorch c10d::ProcessGroupGloo, c10d::TCPStore rendezvous"},
      {"self", "one process alone (what 'auto' picks outside mpirun)"},
  };
  return registry;
}

}  // namespace dtbench
