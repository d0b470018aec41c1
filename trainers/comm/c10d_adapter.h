#pragma once
// What differs between libtorch 1.13's c10d and 2.x's, in one place. Each major version's
// definitions are in a file of its own (torch1/, torch2/ c10d_adapter.cpp); CMake compiles the
// one for the libtorch it found (trainers/CMakeLists.txt). Nothing else asks for the version.
#include <c10/util/intrusive_ptr.h>

namespace c10d {
class ProcessGroup;
class ProcessGroupGloo;
class Store;
struct TCPStoreOptions;
}  // namespace c10d

namespace dtbench {

// The process group the DDP engine (c10d::Reducer) and its comm hooks run on, over this Gloo
// process group. In 1.13 ProcessGroupGloo is one. In 2.x it is a Backend that a ProcessGroup
// holds: the group is made once around it, and the Reducer's collectives then go through the
// dispatcher to it, as PyTorch 2.x's own DDP does (docs/communicators.md).
c10::intrusive_ptr<c10d::ProcessGroup> reducer_process_group(
    const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
    const c10::intrusive_ptr<c10d::ProcessGroupGloo>& gloo);

// The rendezvous store's options as this version needs them: 2.x's TCPStore serves through
// libuv by default, which Debian's libtorch 2.x is built without.
void complete_store_options(c10d::TCPStoreOptions& options);

// While one lives, c10d writes no log lines (it logs every failed bind and connect of the
// rendezvous before it throws; the caller says what matters in one line). 1.13 logs through
// glog; 2.x through c10's own logger.
class QuietC10dLogs {
 public:
  QuietC10dLogs();
  ~QuietC10dLogs();
  QuietC10dLogs(const QuietC10dLogs&) = delete;
  QuietC10dLogs& operator=(const QuietC10dLogs&) = delete;

 private:
  int saved_ = 0;
};

}  // namespace dtbench
