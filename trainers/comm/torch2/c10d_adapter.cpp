// c10d_adapter.h for libtorch 2.x (Debian 13's 2.6.0).
#include "comm/c10d_adapter.h"

#include <c10/util/Logging.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace dtbench {

c10::intrusive_ptr<c10d::ProcessGroup> reducer_process_group(
    const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
    const c10::intrusive_ptr<c10d::ProcessGroupGloo>& gloo) {
  auto group = c10::make_intrusive<c10d::ProcessGroup>(store, rank, size);
  group->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO, gloo);
  group->setDefaultBackend(c10d::ProcessGroup::BackendType::GLOO);
  return group;
}

void complete_store_options(c10d::TCPStoreOptions& options) {
  options.useLibUV = false;
}

QuietC10dLogs::QuietC10dLogs() : saved_(FLAGS_caffe2_log_level) {
  FLAGS_caffe2_log_level = c10::GLOG_FATAL;
}

QuietC10dLogs::~QuietC10dLogs() {
  FLAGS_caffe2_log_level = saved_;
}

}  // namespace dtbench
