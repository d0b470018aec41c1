#pragma once
// Every MPI call goes through DTB_MPI_CHECK: on failure a CommError naming host, rank, place and
// MPI's own message (MPI_ERRORS_RETURN is set on the communicators dtbench uses).
#include <string>

#define DTB_MPI_CHECK(call) ::dtbench::check_mpi((call), #call, __FILE__, __LINE__)

namespace dtbench {

// The message for MPI error `code` from `call` at file:line: "mpi: HOST rank R: ...".
std::string mpi_error_message(int code, const char* call, const char* file, int line);

// Throws CommError with that message unless code is MPI_SUCCESS.
void check_mpi(int code, const char* call, const char* file, int line);

}  // namespace dtbench
