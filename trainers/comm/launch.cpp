#include "comm/launch.h"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "catalogue/backends.h"
#include "comm/c10d_adapter.h"
#include "comm/gloo_communicator.h"
#include "comm/mpi_communicator.h"
#include "comm/self_communicator.h"
#include "common/error.h"
#include "common/host.h"
#include "common/ports.h"
#include "common/slurm.h"

namespace dtbench {

namespace {

// Under mpirun, rank 0 picks the rendezvous address and a free port and tells the others
// through MPI: the course's "--master" without typing it.
std::string master_from_mpirun() {
  ensure_mpi_initialised();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::array<char, 256> text{};
  if (rank == 0) {
    const std::string host = gloo_address();
    std::snprintf(text.data(), text.size(), "%s:%d", host.c_str(), free_port());
  }
  MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
  return text.data();
}

std::unique_ptr<Communicator> connect_gloo(const LaunchOptions& o) {
  int rank = o.rank, size = o.world_size;
  std::string master = o.master;
  if (master.empty()) {
    require(launcher() != "none",
            "--backend gloo outside mpirun (or srun --mpi=pmix) needs --master HOST:PORT, "
            "--world-size and --rank");
    master = master_from_mpirun();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  require(size >= 1 && rank >= 0 && rank < size,
          fmt::format("--rank {} is not within --world-size {}", rank, size));
  auto colon = master.rfind(':');
  require(colon != std::string::npos && colon > 0,
          fmt::format("--master '{}' is not HOST:PORT", master));
  std::string host = master.substr(0, colon);
  int port = std::atoi(master.c_str() + colon + 1);
  require(port > 0 && port < 65536, fmt::format("--master '{}' has no valid port", master));

  std::chrono::milliseconds timeout(1000LL * o.timeout_s);
  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<uint16_t>(port);
  store_options.isServer = rank == 0;
  store_options.numWorkers = size;
  store_options.waitWorkers = false;
  store_options.timeout = timeout;
  complete_store_options(store_options);
  c10::intrusive_ptr<c10d::Store> store;
  try {
    const QuietC10dLogs quiet;  // the one line below says what matters
    store = c10::make_intrusive<c10d::TCPStore>(host, store_options);
  } catch (const std::exception& e) {
    const std::string why = first_line(e.what());
    if (why.find("Address already in use") != std::string::npos) {
      throw UserError(
          fmt::format("gloo: rank 0: port {} of --master {} is in use: choose "
                      "another port",
                      port, master));
    }
    throw CommError(fmt::format("gloo: rank {}: rendezvous at {} failed: {}", rank, master, why));
  }
  bool local = host == "127.0.0.1" || host == "localhost";
  return make_gloo_communicator(store, rank, size, timeout, local);
}

}  // namespace

namespace {

std::unique_ptr<Communicator> connect_backend(const LaunchOptions& o) {
  std::string backend = o.backend;
  if (backend == "auto") backend = launcher() != "none" ? "mpi" : "self";
  if (backend == "mpi") return make_mpi_communicator();
  if (backend == "gloo") return connect_gloo(o);
  if (backend == "self") {
    require(!launched_by_mpirun() || std::string(std::getenv("OMPI_COMM_WORLD_SIZE")) == "1",
            "--backend self is one process alone; under mpirun use mpi or gloo");
    return make_self_communicator();
  }
  std::vector<std::string> known = {"auto"};
  for (const auto& b : backend_registry()) known.push_back(b.name);
  throw UserError(fmt::format("unknown backend '{}' (known: {})", backend, fmt::join(known, ", ")));
}

}  // namespace

std::unique_ptr<Communicator> connect(const LaunchOptions& o) {
  std::unique_ptr<Communicator> comm = connect_backend(o);
  require_one_world(comm->size());  // srun's tasks started as singletons would train apart
  return comm;
}

}  // namespace dtbench
