// scatter: rank r ends with part r of rank 0's vector. busbw factor (n-1)/n.
#include "collectives/collective.h"

namespace dtbench::bench {

Collective scatter_collective() {
  return {"scatter",
          /*split=*/true,
          factor_parts,
          [](int64_t count, const Communicator& c) {
            return Buffers{at::empty({c.rank() == 0 ? count : 0}), at::empty({count / c.size()})};
          },
          [](Buffers& b, const Communicator&, int64_t i) {
            // Part r of the root's vector is what rank r would have: seeded(i, r, e).
            const int64_t part = b.out.numel();
            float* data = b.in.data_ptr<float>();
            for (int64_t e = 0; e < b.in.numel(); ++e) {
              data[e] = seeded(i, static_cast<int>(e / part), e);
            }
            b.out.fill_(-1);
          },
          [](Communicator& c, Buffers& b) { c.scatter(b.in, b.out, 0); },
          [](const Buffers& b, const Communicator& c, int64_t i) {
            return count_mismatches(b.out, c.rank() * b.out.numel(),
                                    [&](int64_t e) { return seeded(i, c.rank(), e); });
          }};
}

}  // namespace dtbench::bench
