#include "collectives/collective.h"

namespace dtbench::bench {

void fill_seeded(at::Tensor& t, int64_t iteration, int rank, int64_t first) {
  float* data = t.data_ptr<float>();
  for (int64_t k = 0; k < t.numel(); ++k) data[k] = seeded(iteration, rank, first + k);
}

Collective in_place_sum(const char* name, double (*factor)(int),
                        void (*run)(Communicator&, Buffers&), bool root_only) {
  auto wrong = root_only ? +[](const Buffers& b, const Communicator& c, int64_t i) -> int64_t {
    if (c.rank() != 0) return 0;
    return count_mismatches(b.in, 0, [&](int64_t e) { return seeded_sum(i, c.size(), e); });
  }
  : +[](const Buffers& b, const Communicator& c, int64_t i) -> int64_t {
      return count_mismatches(b.in, 0, [&](int64_t e) { return seeded_sum(i, c.size(), e); });
    };
  return {name,
          /*split=*/false,
          factor,
          [](int64_t count, const Communicator&) {
            return Buffers{at::empty({count}), {}};
          },
          [](Buffers& b, const Communicator& c, int64_t i) { fill_seeded(b.in, i, c.rank(), 0); },
          run,
          wrong};
}

const std::vector<Collective>& collectives() {
  static const std::vector<Collective> all = {
      allreduce_collective(),      reduce_collective(),      broadcast_collective(),
      gather_collective(),         scatter_collective(),     allgather_collective(),
      reduce_scatter_collective(), ring_reduce_collective(), ring_allreduce_collective(),
      gather_scatter_collective(),
  };
  return all;
}

}  // namespace dtbench::bench
