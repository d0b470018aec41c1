// c10d_adapter.h for libtorch 1.x (Debian 12's 1.13.1).
#include "comm/c10d_adapter.h"

#include <c10/util/Logging.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace dtbench {

c10::intrusive_ptr<c10d::ProcessGroup> reducer_process_group(
    const c10::intrusive_ptr<c10d::Store>& /*store*/, int /*rank*/, int /*size*/,
    const c10::intrusive_ptr<c10d::ProcessGroupGloo>& gloo) {
  return gloo;  // a ProcessGroup itself
}

void complete_store_options(c10d::TCPStoreOptions& /*options*/) {}

QuietC10dLogs::QuietC10dLogs() : saved_(FLAGS_minloglevel) {
  FLAGS_minloglevel = google::GLOG_FATAL;
}

QuietC10dLogs::~QuietC10dLogs() {
  FLAGS_minloglevel = saved_;
}

}  // namespace dtbench
