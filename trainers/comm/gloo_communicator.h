#pragma once
#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <memory>
#include <string>

#include "comm/communicator.h"

namespace c10d {
class ProcessGroup;
class Store;
}  // namespace c10d

namespace dtbench {

// libtorch's c10d::ProcessGroupGloo over a rendezvous store (a c10d::TCPStore across
// processes, a c10d::HashStore for ranks that are threads of one test process). The transport
// binds to $GLOO_SOCKET_IFNAME if set, to loopback when local is true, else to the address
// this host's name resolves to.
std::unique_ptr<Communicator> make_gloo_communicator(const c10::intrusive_ptr<c10d::Store>& store,
                                                     int rank, int size,
                                                     std::chrono::milliseconds timeout, bool local);

// The process group the DDP engine runs on over a Gloo communicator (c10d_adapter.h);
// undefined for any other backend.
c10::intrusive_ptr<c10d::ProcessGroup> gloo_process_group(Communicator& comm);

}  // namespace dtbench
