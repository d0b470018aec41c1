// dtbench-probe: what `dtbench doctor` and the preflight of `dtbench run` ask every host,
// launched there by the same mpirun as the experiments (one rank per host). Plain C++ and MPI.
//   dtbench-probe --data-dir DIR [--link-mb M --repeats K] [--compute]
// Every rank reports its host name, the dtbench build it is (commit and dirty flag) and the
// SHA-256 of each dataset file under DIR. With --link-mb, the ranks then measure the links: in
// rounds of disjoint pairs (a round-robin tournament), each pair sends M MiB K times one way,
// then the other, so every ordered pair of hosts is timed, and no host serves two pairs at once;
// a direction's rate is its fastest message's. Before the links, the ports Gloo needs: every rank
// listens on a port the kernel picks, at the address Gloo would use (GLOO_SOCKET_IFNAME's), as
// Gloo's rendezvous and pairs do, and connects to every other rank's; a connection refused or
// unanswered is a line on stderr, "dtbench-probe: blocked: 1 -> 3 (ADDRESS:PORT): why" (ranks; the
// doctor names their hosts), and then the links are not measured (MPI could hang on that pair).
// Rank 0 prints one JSON object: {"hosts": [...], "links": [{"from", "to", "bytes_per_s"}],
// "blocked": [{"from", "to", "why"}], "compute": [...]}. Before each exchange a line on stderr
// names the pair ("measuring 1 <-> 3"), so that an exchange that never ends is named by the last
// such line. With --compute, every rank at once times the same short compute with the threads a
// trainer would take there (common/thread_share.h): "compute" holds each rank's {"threads": {...},
// "compute_s"}.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <mpi.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "common/host.h"
#include "common/main_guard.h"
#include "common/mpi_start.h"
#include "common/ports.h"
#include "common/thread_share.h"
#include "doctor/doctor.h"

namespace {

// The probes talk to each other only through rank 0 (sends and receives, no collective's tree):
// a pair of other hosts that cannot connect (what the ports check looks for) does not hang them.

// Every rank's text, in rank order, on rank 0 (empty elsewhere).
std::vector<std::string> gather_text(const std::string& text, int rank, int size) {
  std::vector<std::string> out;
  if (rank != 0) {
    int length = static_cast<int>(text.size());
    MPI_Send(&length, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
    MPI_Send(text.data(), length, MPI_CHAR, 0, 11, MPI_COMM_WORLD);
    return out;
  }
  out.push_back(text);
  for (int r = 1; r < size; ++r) {
    int length = 0;
    MPI_Recv(&length, 1, MPI_INT, r, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::string part(static_cast<size_t>(length), '\0');
    MPI_Recv(part.data(), length, MPI_CHAR, r, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    out.push_back(std::move(part));
  }
  return out;
}

// Rank 0's text on every rank.
std::string from_root(const std::string& text, int rank, int size) {
  if (rank == 0) {
    int length = static_cast<int>(text.size());
    for (int r = 1; r < size; ++r) {
      MPI_Send(&length, 1, MPI_INT, r, 12, MPI_COMM_WORLD);
      MPI_Send(text.data(), length, MPI_CHAR, r, 13, MPI_COMM_WORLD);
    }
    return text;
  }
  int length = 0;
  MPI_Recv(&length, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string out(static_cast<size_t>(length), '\0');
  MPI_Recv(out.data(), length, MPI_CHAR, 0, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return out;
}

// Every rank's text, in rank order, on every rank.
std::vector<std::string> all_texts(const std::string& text, int rank, int size) {
  const std::vector<std::string> at_root = gather_text(text, rank, size);
  const std::string joined = from_root(rank == 0 ? nlohmann::json(at_root).dump() : "", rank, size);
  return nlohmann::json::parse(joined).get<std::vector<std::string>>();
}

// Every rank waits here until all have come.
void barrier(int rank, int size) {
  gather_text("", rank, size);
  from_root("", rank, size);
}

// A socket listening at ipv4 on a port the kernel picks, as Gloo's listen; closed with it.
class Listener {
 public:
  explicit Listener(const std::string& ipv4) : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    socklen_t length = sizeof(addr);
    const bool ok = fd_ >= 0 && inet_pton(AF_INET, ipv4.c_str(), &addr.sin_addr) == 1 &&
                    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                    listen(fd_, 64) == 0 &&
                    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &length) == 0;
    if (!ok) throw dtbench::UserError(fmt::format("cannot listen at {}", ipv4));
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() { close(fd_); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

// Every rank connects to every other rank's listener, as Gloo's pairs do (the kernel completes
// each handshake; nothing is accepted). The ones that failed from this rank: {to, why}.
nlohmann::json check_ports(int rank, int size) {
  const std::string ipv4 = dtbench::ipv4_of(dtbench::gloo_address());
  const Listener listener(ipv4.empty() ? "0.0.0.0" : ipv4);
  const auto endpoints = all_texts(fmt::format("{}:{}", ipv4, listener.port()), rank, size);
  nlohmann::json blocked = nlohmann::json::array();
  for (int k = 1; k < size; ++k) {
    const int to = (rank + k) % size;
    const std::string& at = endpoints[to];
    const size_t colon = at.rfind(':');
    const std::string why = dtbench::connection_error(
        at.substr(0, colon), std::atoi(at.c_str() + colon + 1), /*timeout_ms=*/5000);
    if (why.empty()) continue;
    std::fprintf(stderr, "dtbench-probe: blocked: %d -> %d (%s): %s\n", rank, to, at.c_str(),
                 why.c_str());
    blocked.push_back({{"to", to}, {"why", why}});
  }
  barrier(rank, size);  // the listeners stay open until every rank has tried
  return blocked;
}

// Round r of a round-robin tournament of n players (n even): the partner of `me`.
int partner(int me, int round, int n) {
  const int m = n - 1;  // player m stays put, the others rotate
  if (me == m) return round;
  if (me == round) return m;
  return ((2 * round - me) % m + m) % m;
}

// The time of one send of the buffer from `from` to `to` (measured by the sender, up to the
// receiver's one-byte acknowledgement).
double one_way_s(int me, int from, int to, std::vector<char>& buffer) {
  char ack = 0;
  const auto t0 = std::chrono::steady_clock::now();
  if (me == from) {
    MPI_Send(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, to, 0, MPI_COMM_WORLD);
    MPI_Recv(&ack, 1, MPI_CHAR, to, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, from, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    MPI_Send(&ack, 1, MPI_CHAR, from, 1, MPI_COMM_WORLD);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The links this rank sent on: {to, bytes_per_s} for each round it played.
nlohmann::json measure_links(int rank, int size, double link_mb, int repeats) {
  const int players = size + size % 2;  // odd: a bye each round
  std::vector<char> buffer(static_cast<size_t>(link_mb * 1024 * 1024), 1);
  nlohmann::json sent = nlohmann::json::array();
  for (int round = 0; round < players - 1; ++round) {
    barrier(rank, size);
    const int peer = partner(rank, round, players);
    if (peer >= size) continue;
    std::fprintf(stderr, "dtbench-probe: measuring %d <-> %d\n", rank, peer);
    std::vector<char> warm(1024);
    one_way_s(rank, std::min(rank, peer), std::max(rank, peer), warm);  // the connection
    for (int from : {std::min(rank, peer), std::max(rank, peer)}) {
      const int to = from == rank ? peer : rank;
      // The fastest of `repeats` messages: a moment when a rank was not scheduled (4 ranks on 2
      // cores, two pairs at once) slows one message, not the link.
      double best = std::numeric_limits<double>::infinity();
      for (int i = 0; i < repeats; ++i) best = std::min(best, one_way_s(rank, from, to, buffer));
      if (from == rank) {
        sent.push_back({{"to", to}, {"bytes_per_s", static_cast<double>(buffer.size()) / best}});
      }
    }
  }
  return sent;
}

// The probe's compute: `rounds` rounds of a fixed amount of arithmetic shared out among
// `threads` threads that meet at a spinning barrier after each round, as the intra-op threads of
// libtorch's parallel loops do. With the threads a rank should take it costs about the same on
// any launcher; with more threads than the cores the ranks share, every round waits for a thread
// that is not running while the others spin, as training would. Seconds of wall time.
double spin_rounds_s(int threads, int rounds = 200, int64_t work = 60'000'000) {
  std::atomic<int> arrived{0};
  std::atomic<int> generation{0};
  std::atomic<double> sink{0};
  auto worker = [&](int t) {
    double x = 1.0 + t;
    const int64_t share = work / rounds / threads;
    for (int round = 0; round < rounds; ++round) {
      for (int64_t i = 0; i < share; ++i) x = x * 0.999999 + 1e-7;
      const int seen = generation.load();
      if (arrived.fetch_add(1) + 1 == threads) {
        arrived.store(0);
        generation.fetch_add(1);
      } else {
        while (generation.load() == seen) {
        }
      }
    }
    sink.store(x);
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& t : pool) t.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Every rank at once, as an experiment's ranks: the threads the trainer would take
// (thread_share.h) and the time of the same compute with them, the shortest of three (a fault of
// threads or cpuset slows every one; a rank that started late, only one):
// {"threads": {...}, "compute_s"}.
nlohmann::json measure_compute(int rank, int size) {
  const dtbench::CpuPlace place = dtbench::cpu_place();
  const dtbench::ThreadShare share = dtbench::share_threads(
      0, place, all_texts(place.key(), rank, size), dtbench::launcher_local_ranks());
  double seconds = 0;
  for (int k = 0; k < 3; ++k) {
    barrier(rank, size);
    const double s = spin_rounds_s(share.threads);
    seconds = k == 0 ? s : std::min(seconds, s);
  }
  return {{"threads", share.to_json()}, {"compute_s", seconds}};
}

// Rank 0's answer on stdout; every rank's own part gathered to it.
void probe(const std::string& data_dir, double link_mb, int repeats, bool compute) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const nlohmann::json me = dtbench::host_identity(data_dir);
  const bool measure = link_mb > 0 && size > 1;
  const nlohmann::json blocked = measure ? check_ports(rank, size) : nlohmann::json::array();
  const auto blocked_all = gather_text(blocked.dump(), rank, size);
  bool any_blocked = false;
  for (const auto& b : blocked_all) any_blocked = any_blocked || !nlohmann::json::parse(b).empty();
  any_blocked = from_root(any_blocked ? "1" : "", rank, size) == "1";
  const nlohmann::json sent = measure && !any_blocked ? measure_links(rank, size, link_mb, repeats)
                                                      : nlohmann::json::array();
  const nlohmann::json computed = compute ? measure_compute(rank, size) : nlohmann::json();
  const auto identities = gather_text(me.dump(), rank, size);
  const auto links = gather_text(sent.dump(), rank, size);
  const auto computes = gather_text(computed.dump(), rank, size);
  if (rank != 0) return;
  nlohmann::json out = {{"hosts", nlohmann::json::array()},
                        {"links", nlohmann::json::array()},
                        {"blocked", nlohmann::json::array()},
                        {"compute", nlohmann::json::array()}};
  for (int r = 0; r < size; ++r) {
    out["hosts"].push_back(nlohmann::json::parse(identities[r]));
    if (compute) out["compute"].push_back(nlohmann::json::parse(computes[r]));
    for (const auto& b : nlohmann::json::parse(blocked_all[r])) {
      out["blocked"].push_back({{"from", r}, {"to", b["to"]}, {"why", b["why"]}});
    }
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
    int repeats = 3;
    app.add_option("--data-dir", data_dir, "The datasets' directory");
    app.add_option("--link-mb", link_mb, "Also measure every link with messages of this size");
    app.add_option("--repeats", repeats, "Messages per direction (the fastest counts)")
        ->check(CLI::PositiveNumber);
    bool compute = false;
    app.add_flag("--compute", compute,
                 "Also time a short compute with the threads a trainer would take, every rank at "
                 "once");
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return app.exit(e);
    }
    MPI_Init(&argc, &argv);
    dtbench::wait_for_every_rank_started();
    try {
      probe(data_dir, link_mb, repeats, compute);
    } catch (const std::exception& e) {
      // One rank's failure ends them all: the others may wait in a collective for it.
      std::fprintf(stderr, "dtbench-probe: %s: %s\n", dtbench::host_name().c_str(), e.what());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
  });
}
