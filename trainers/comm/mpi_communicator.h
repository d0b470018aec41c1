#pragma once
#include <memory>

#include "comm/communicator.h"

namespace dtbench {

// OpenMPI's C API on MPI_COMM_WORLD (Debian's libtorch has no ProcessGroupMPI). Initialises
// MPI with MPI_THREAD_MULTIPLE if nobody has yet.
std::unique_ptr<Communicator> make_mpi_communicator();

// True when this process was started by mpirun (OpenMPI's environment is present).
bool launched_by_mpirun();

// Initialises MPI (thread-multiple) once per process; safe to call again. Throws CommError if
// the library, or whoever initialised it first, gives less than MPI_THREAD_MULTIPLE.
void ensure_mpi_initialised();

// Throws that CommError, naming the level, if `provided` (MPI_Init_thread's or
// MPI_Query_thread's) is below MPI_THREAD_MULTIPLE.
void require_thread_level(int provided);

// Finalises MPI if it was initialised: call on a clean exit only. An error exit leaves without
// it, so that mpirun sees the failure and stops the other ranks instead of MPI_Finalize
// waiting for a peer that died.
void finalize_mpi();

}  // namespace dtbench
