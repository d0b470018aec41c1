#pragma once
#include <string>

namespace dtbench {

// A TCP port free on this host right now, drawn below the kernel's ephemeral range (where no
// outgoing connection takes it before the rendezvous binds it), else the kernel's pick for port
// 0. CommError if there is none to be had.
int free_port();

// The lowest port of the kernel's ephemeral range (ip_local_port_range); 0 if unknown.
int ephemeral_low();

// Why a TCP connection to ipv4:port was not accepted within timeout_ms ("" when it was).
std::string connection_error(const std::string& ipv4, int port, int timeout_ms);

// Whether a TCP connection to ipv4:port is accepted within timeout_ms.
bool accepts_connections(const std::string& ipv4, int port, int timeout_ms);

// The IPv4 address of a network interface, e.g. eth0 inside an emulated-cluster namespace ("" if
// it has none).
std::string address_of_interface(const std::string& name);

// Where this rank's Gloo peers reach it: GLOO_SOCKET_IFNAME's address, 127.0.0.1 when every
// rank of mpirun's world is on this host, else the host's name.
std::string gloo_address();

// The IPv4 address of a host name or dotted address ("" if it resolves to none).
std::string ipv4_of(const std::string& host);

}  // namespace dtbench
