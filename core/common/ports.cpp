#include "common/ports.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

#include "common/error.h"
#include "common/host.h"

namespace dtbench {

namespace {

// Whether port (0: the kernel's pick) can be bound on every address now; the port bound.
int bind_port(int port, int* error) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t length = sizeof(addr);
  const bool ok = fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) == 0;
  *error = errno;  // before close() can change it
  if (fd >= 0) close(fd);
  return ok ? ntohs(addr.sin_port) : -1;
}

}  // namespace

int ephemeral_low() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0, high = 0;
  return range >> low >> high ? low : 0;
}

int free_port() {
  // Below the kernel's ephemeral range, so that no outgoing connection (Gloo's, MPI's, the
  // other ranks' of this host) can take the port between this pick and the rendezvous' bind:
  // a pick of port 0 comes from that range, and lost that race on the emulated cluster.
  constexpr int kLowest = 20000;
  const int below = ephemeral_low();
  int error = 0;
  if (below > kLowest + 100) {
    std::random_device seed;
    std::mt19937 pick(seed());
    std::uniform_int_distribution<int> port(kLowest, below - 1);
    for (int attempt = 0; attempt < 64; ++attempt) {
      const int bound = bind_port(port(pick), &error);
      if (bound > 0) return bound;
    }
  }
  const int bound = bind_port(0, &error);
  if (bound < 0) {
    throw CommError(fmt::format("no free TCP port for the rendezvous: {}", strerror(error)));
  }
  return bound;
}

std::string connection_error(const std::string& ipv4, int port, int timeout_ms) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, ipv4.c_str(), &addr.sin_addr) != 1) return "not an IPv4 address";
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return strerror(errno);
  std::string why;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    why = strerror(errno);
    if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int error = 0;
      socklen_t length = sizeof(error);
      if (poll(&p, 1, timeout_ms) != 1) {
        why = fmt::format("no answer in {} ms", timeout_ms);
      } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
        why = strerror(error);
      } else {
        why.clear();
      }
    }
  }
  close(fd);
  return why;
}

bool accepts_connections(const std::string& ipv4, int port, int timeout_ms) {
  return connection_error(ipv4, port, timeout_ms).empty();
}

std::string address_of_interface(const std::string& name) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* a = list; a != nullptr && found.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET || name != a->ifa_name) {
      continue;
    }
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof(text));
    found = text;
  }
  freeifaddrs(list);
  return found;
}

std::string gloo_address() {
  const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
  if (ifname != nullptr && *ifname != '\0') {
    std::string address = address_of_interface(ifname);
    if (!address.empty()) return address;
  }
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const char* world = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (local != nullptr && world != nullptr && std::string(local) == world) return "127.0.0.1";
  return host_name();
}

std::string ipv4_of(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return "";
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof(text));
  freeaddrinfo(found);
  return text;
}

}  // namespace dtbench
