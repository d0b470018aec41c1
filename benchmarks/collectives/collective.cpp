#include "collectives/collective.h"

#include <algorithm>
#include <array>

namespace dtbench::bench {
namespace {

// residue(i, e) repeats every 17 elements, so a table of whole periods, entered at the phase of
// a run's first element, serves a run of any length: the loops then need no division per
// element and vectorise. Refilling and checking 4 MiB this way takes about 0.45 ms instead of
// 1.9 ms with the closed form, which matters between operations of 1-2 ms when 4 ranks share
// 2 cores (README, harness overhead).
constexpr int64_t kPeriod = 17;
constexpr int64_t kRun = kPeriod * 64;

const std::array<float, kRun + kPeriod>& residues() {
  static const auto table = [] {
    std::array<float, kRun + kPeriod> t{};
    for (size_t j = 0; j < t.size(); ++j) t[j] = static_cast<float>(3 * j % kPeriod);
    return t;
  }();
  return table;
}

// Calls body(offset, residue, length) over runs covering `count` elements, where residue[k] is
// residue(iteration, first + offset + k). The table holds 3j mod 17; entering it at phase
// 8i + first works because 3 x 8i = 24i = 7i (mod 17), and every run starts a whole number of
// periods later.
template <typename Body>
void for_each_run(int64_t count, int64_t iteration, int64_t first, Body body) {
  const int64_t phase = ((8 * iteration + first) % kPeriod + kPeriod) % kPeriod;
  const float* residue = residues().data() + phase;
  for (int64_t offset = 0; offset < count; offset += kRun) {
    body(offset, residue, std::min(kRun, count - offset));
  }
}

}  // namespace

int64_t seed_residue(int64_t iteration, int64_t e) {
  return ((7 * iteration + 3 * e) % kPeriod + kPeriod) % kPeriod;
}

void fill_seeded(at::Tensor& t, int64_t iteration, int64_t first, Seeded want) {
  float* data = t.data_ptr<float>();
  for_each_run(t.numel(), iteration, first, [&](int64_t offset, const float* r, int64_t length) {
    float* out = data + offset;
    for (int64_t k = 0; k < length; ++k) out[k] = r[k] * want.scale + want.offset;
  });
}

int64_t count_mismatches(const at::Tensor& t, int64_t iteration, int64_t first, Seeded want) {
  const float* data = t.data_ptr<float>();
  int64_t wrong = 0;
  for_each_run(t.numel(), iteration, first, [&](int64_t offset, const float* r, int64_t length) {
    const float* in = data + offset;
    int32_t run_wrong = 0;
    for (int64_t k = 0; k < length; ++k) run_wrong += in[k] != r[k] * want.scale + want.offset;
    wrong += run_wrong;
  });
  return wrong;
}

void fill_rank_parts(at::Tensor& t, int64_t iteration, int parts) {
  const int64_t part = t.numel() / parts;
  for (int p = 0; p < parts; ++p) {
    at::Tensor slice = t.narrow(0, p * part, part);
    fill_seeded(slice, iteration, p * part, input_of(p));
  }
}

int64_t count_rank_part_mismatches(const at::Tensor& t, int64_t iteration, int parts) {
  const int64_t part = t.numel() / parts;
  int64_t wrong = 0;
  for (int p = 0; p < parts; ++p) {
    wrong += count_mismatches(t.narrow(0, p * part, part), iteration, p * part, input_of(p));
  }
  return wrong;
}

Collective in_place_sum(const char* name, double (*factor)(int),
                        void (*run)(Communicator&, Buffers&), bool root_only) {
  auto wrong = root_only ? +[](const Buffers& b, const Communicator& c, int64_t i) -> int64_t {
    return c.rank() == 0 ? count_mismatches(b.in, i, 0, sum_of(c.size())) : 0;
  }
  : +[](const Buffers& b, const Communicator& c, int64_t i) -> int64_t {
      return count_mismatches(b.in, i, 0, sum_of(c.size()));
    };
  return {name,
          /*split=*/false,
          factor,
          [](int64_t count, const Communicator&) {
            return Buffers{at::empty({count}), {}, {}, {}};
          },
          [](Buffers& b, const Communicator& c, int64_t i) {
            fill_seeded(b.in, i, 0, input_of(c.rank()));
          },
          run,
          wrong};
}

const std::vector<Collective>& collectives() {
  static const std::vector<Collective> all = [] {
    std::vector<Collective> every = {
        allreduce_collective(),       iallreduce_collective(),
        iallreduce_pair_collective(), iallreduce_uneven_collective(),
        reduce_collective(),          broadcast_collective(),
        gather_collective(),          scatter_collective(),
        allgather_collective(),       reduce_scatter_collective(),
        ring_reduce_collective(),     ring_allreduce_collective(),
        gather_scatter_collective(),  reduce_broadcast_collective(),
    };
    for (Collective& hook : hook_collectives()) every.push_back(std::move(hook));
    return every;
  }();
  return all;
}

}  // namespace dtbench::bench
