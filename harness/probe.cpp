// dtbench-probe: what `dtbench doctor` and the preflight of `dtbench run` ask every host,
// launched there by the same mpirun as the experiments (one rank per host). Plain C++ and MPI.
//   dtbench-probe --data-dir DIR [--link-mb M --repeats K]
// Every rank reports its host name, the dtbench build it is (commit and dirty flag) and the
// SHA-256 of each dataset file under DIR. With --link-mb, the ranks then measure the links: in
// rounds of disjoint pairs (a round-robin tournament), each pair sends M MiB K times one way,
// then the other, so every ordered pair of hosts is timed once, and no host serves two pairs
// at once. Rank 0 prints one JSON object: {"hosts": [...], "links": [{"from", "to",
// "bytes_per_s"}]}. Before each exchange a line on stderr names the pair, so that an exchange
// that never ends (a blocked port) is named by the last such line.
#include <fmt/format.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/host.h"
#include "common/main_guard.h"
#include "doctor.h"

namespace {

// Every rank's text, in rank order, on rank 0 (empty elsewhere).
std::vector<std::string> gather_text(const std::string& text, int rank, int size) {
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<size_t>(size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(static_cast<size_t>(size), 0);
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string all(rank == 0 ? static_cast<size_t>(offsets.back() + lengths.back()) : 0, '\0');
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) out.push_back(all.substr(offsets[r], lengths[r]));
  }
  return out;
}

// Round r of a round-robin tournament of n players (n even): the partner of `me`.
int partner(int me, int round, int n) {
  const int m = n - 1;  // player m stays put, the others rotate
  if (me == m) return round;
  if (me == round) return m;
  return ((2 * round - me) % m + m) % m;
}

// The time of `repeats` sends of `bytes` from `from` to `to` (measured by the sender, up to the
// receiver's one-byte acknowledgement).
double one_way_s(int me, int from, int to, std::vector<char>& buffer, int repeats) {
  char ack = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) {
    if (me == from) {
      MPI_Send(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, to, 0, MPI_COMM_WORLD);
    } else {
      MPI_Recv(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, from, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
  }
  if (me == from) {
    MPI_Recv(&ack, 1, MPI_CHAR, to, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(&ack, 1, MPI_CHAR, from, 1, MPI_COMM_WORLD);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The links this rank sent on: {to, bytes_per_s} for each round it played.
nlohmann::json measure_links(int rank, int size, double link_mb, int repeats,
                             const std::vector<std::string>& names) {
  const int players = size + size % 2;  // odd: a bye each round
  std::vector<char> buffer(static_cast<size_t>(link_mb * 1024 * 1024), 1);
  nlohmann::json sent = nlohmann::json::array();
  for (int round = 0; round < players - 1; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    const int peer = partner(rank, round, players);
    if (peer >= size) continue;
    std::fprintf(stderr, "dtbench-probe: measuring %s <-> %s\n", names[rank].c_str(),
                 names[peer].c_str());
    std::vector<char> warm(1024);
    one_way_s(rank, std::min(rank, peer), std::max(rank, peer), warm, 1);  // the connection
    for (int from : {std::min(rank, peer), std::max(rank, peer)}) {
      const int to = from == rank ? peer : rank;
      const double s = one_way_s(rank, from, to, buffer, repeats);
      if (from == rank) {
        sent.push_back(
            {{"to", to}, {"bytes_per_s", static_cast<double>(buffer.size()) * repeats / s}});
      }
    }
  }
  return sent;
}

// Rank 0's answer on stdout; every rank's own part gathered to it.
void probe(const std::string& data_dir, double link_mb, int repeats) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const nlohmann::json me = dtbench::host_identity(data_dir);
  // Every rank needs the names (for its stderr lines): gathered, then broadcast as one text.
  const std::vector<std::string> at_root = gather_text(me["host"].get<std::string>(), rank, size);
  std::string joined = rank == 0 ? nlohmann::json(at_root).dump() : "";
  int length = static_cast<int>(joined.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  joined.resize(static_cast<size_t>(length));
  MPI_Bcast(joined.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  const auto names = nlohmann::json::parse(joined).get<std::vector<std::string>>();
  const nlohmann::json sent = link_mb > 0 && size > 1
                                  ? measure_links(rank, size, link_mb, repeats, names)
                                  : nlohmann::json::array();
  const auto identities = gather_text(me.dump(), rank, size);
  const auto links = gather_text(sent.dump(), rank, size);
  if (rank != 0) return;
  nlohmann::json out = {{"hosts", nlohmann::json::array()}, {"links", nlohmann::json::array()}};
  for (int r = 0; r < size; ++r) {
    out["hosts"].push_back(nlohmann::json::parse(identities[r]));
    for (const auto& l : nlohmann::json::parse(links[r])) {
      out["links"].push_back({{"from", r}, {"to", l["to"]}, {"bytes_per_s", l["bytes_per_s"]}});
    }
  }
  std::printf("%s\n", out.dump().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  return dtbench::guarded_main("dtbench-probe", [&] {
    CLI::App app("dtbench-probe: a host's build, data and links, for dtbench doctor");
    std::string data_dir = "data";
    double link_mb = 0;
    int repeats = 2;
    app.add_option("--data-dir", data_dir, "The datasets' directory");
    app.add_option("--link-mb", link_mb, "Also measure every link with messages of this size");
    app.add_option("--repeats", repeats, "Messages per direction")->check(CLI::PositiveNumber);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return app.exit(e);
    }
    MPI_Init(&argc, &argv);
    try {
      probe(data_dir, link_mb, repeats);
    } catch (const std::exception& e) {
      // One rank's failure ends them all: the others may wait in a collective for it.
      std::fprintf(stderr, "dtbench-probe: %s: %s\n", dtbench::host_name().c_str(), e.what());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
  });
}
