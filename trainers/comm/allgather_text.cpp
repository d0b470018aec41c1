#include "comm/allgather_text.h"

#include <ATen/ATen.h>

#include <cstring>

namespace dtbench {

std::vector<std::string> allgather_text(Communicator& comm, const std::string& text) {
  at::Tensor length = at::full({1}, static_cast<int64_t>(text.size()), at::kLong);
  at::Tensor lengths = at::empty({comm.size()}, at::kLong);
  comm.allgather(length, lengths);
  const int64_t longest = lengths.max().item<int64_t>();
  if (longest == 0) return std::vector<std::string>(static_cast<size_t>(comm.size()));
  at::Tensor mine = at::zeros({longest}, at::kByte);
  std::memcpy(mine.data_ptr<uint8_t>(), text.data(), text.size());
  at::Tensor all = at::empty({comm.size() * longest}, at::kByte);
  comm.allgather(mine, all);
  std::vector<std::string> texts;
  texts.reserve(comm.size());
  const auto* bytes = reinterpret_cast<const char*>(all.data_ptr<uint8_t>());
  for (int r = 0; r < comm.size(); ++r) {
    texts.emplace_back(bytes + r * longest, static_cast<size_t>(lengths[r].item<int64_t>()));
  }
  return texts;
}

}  // namespace dtbench
