#include "common/mpi_check.h"

#include <fmt/core.h>
#include <mpi.h>

#include "common/error.h"
#include "common/host.h"

namespace dtbench {

std::string mpi_error_message(int code, const char* call, const char* file, int line) {
  char message[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, message, &length);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return fmt::format("mpi: {} rank {}: {}:{}: {}: {}", host_name(), rank, file, line, call,
                     message);
}

void check_mpi(int code, const char* call, const char* file, int line) {
  if (code != MPI_SUCCESS) throw CommError(mpi_error_message(code, call, file, line));
}

}  // namespace dtbench
