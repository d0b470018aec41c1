#include "comm/text.h"

#include <ATen/ATen.h>

namespace dtbench {

std::vector<std::string> allgather_text(Communicator& comm, const std::string& text) {
  at::Tensor length = at::full({1}, static_cast<float>(text.size()), at::kFloat);
  comm.allreduce(length, ReduceOp::max);
  const auto longest = static_cast<int64_t>(length.item<float>());
  at::Tensor mine = at::full({longest + 1}, -1.0f, at::kFloat);  // -1 marks the end
  float* bytes = mine.data_ptr<float>();
  for (size_t i = 0; i < text.size(); ++i)
    bytes[i] = static_cast<float>(static_cast<uint8_t>(text[i]));
  at::Tensor all = at::empty({comm.size() * (longest + 1)}, at::kFloat);
  comm.allgather(mine, all);
  std::vector<std::string> texts;
  const float* values = all.data_ptr<float>();
  for (int r = 0; r < comm.size(); ++r) {
    std::string t;
    for (int64_t i = 0; i <= longest && values[r * (longest + 1) + i] >= 0; ++i) {
      t.push_back(static_cast<char>(static_cast<uint8_t>(values[r * (longest + 1) + i])));
    }
    texts.push_back(t);
  }
  return texts;
}

}  // namespace dtbench
