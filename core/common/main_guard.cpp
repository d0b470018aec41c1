#include "common/main_guard.h"

#include <fmt/core.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "common/error.h"

namespace dtbench {
namespace {

// This process's rank as its launcher numbered it (OpenMPI's mpirun, or srun through PMIx);
// 0 when no launcher started it.
int launched_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK"}) {
    if (const char* value = std::getenv(name)) return std::atoi(value);
  }
  return 0;
}

}  // namespace

int guarded_main(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const ArgumentError& e) {
    if (launched_rank() == 0) {
      fmt::print(stderr, "{}: error: {}\n", program, first_line(e.what()));
    } else {
      // OpenMPI 5's launcher ends the job at the first rank that exits with an error and can drop
      // what rank 0 wrote but it has not yet forwarded: the silent ranks leave a moment later.
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    return 2;
  } catch (const UserError& e) {
    fmt::print(stderr, "{}: error: {}\n", program, first_line(e.what()));
    return 2;
  } catch (const RunError& e) {
    fmt::print(stderr, "{}: error: {}\n", program, first_line(e.what()));
    return 3;
  } catch (const std::exception& e) {  // c10::Error too: its first line is the message
    fmt::print(stderr, "{}: internal error: {}\n", program, first_line(e.what()));
  }
  return 1;
}

}  // namespace dtbench
