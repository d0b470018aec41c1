#pragma once
// MPI's start-up across launchers.

namespace dtbench {

// Call right after MPI_Init: returns once every rank of the job has returned from MPI_Init,
// through the launcher's PMIx server (mpirun's or srun --mpi=pmix's) rather than through MPI.
// OpenMPI 5.0 ends MPI_Init with a PMIx fence and only after it registers MPI_COMM_WORLD with
// ob1, its point-to-point layer: a rank released from that fence first may send before a peer has
// registered the communicator, and the peer, still in MPI_Init, crashes in ob1's match of the
// message (open-mpi/ompi#12495). Behind this second fence no rank sends before all have left
// MPI_Init. Without a PMIx server (one process started alone) it returns at once.
void wait_for_every_rank_started();

}  // namespace dtbench
