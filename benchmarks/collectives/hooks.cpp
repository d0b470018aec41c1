// <name>_hook for every lossy hook of the catalogue (fp16_hook, topk_hook, powersgd_hook): the
// method's whole operation on one bucket, as the trainer's communication thread runs it (its
// strategy's hook with the defaults: the mean, top-k's 1%, PowerSGD's rank 1, compressing from
// the first operation): compressing, its collectives (blocking calls, as the hooks make them)
// and decompressing. Its time and machine_cpu_s are what the model charges each bucket of the
// method (docs/model.md). The hook lives as long as the benchmark, so its error feedback and
// warm start carry over from one operation to the next. The bucket is a matrix of 512 rows
// (VGG-11's widest layers) and what does not fill a row a vector. Bytes: the bucket's;
// busbw = algbw (what a hook moves is its own: docs/compression.md). A new lossy hook in the
// catalogue is measured here with no line of its own.
//
// Checked: fp16 against the mean in closed form, to float16's precision, on the seeded small
// integers of the other collectives. The others run on normal values, as gradients are, and
// their results have no closed form here (what they send depends on the error they carried):
// every element must be finite, and top-k may leave no more nonzero elements than the ranks
// sent. Their values are tested against PyTorch's hooks (tests/python_hooks_test.sh).
#include <ATen/CPUGeneratorImpl.h>

#include "catalogue/compression_rules.h"
#include "catalogue/methods.h"
#include "collectives/collective.h"
#include "sync/compression.h"

namespace dtbench::bench {
namespace {

constexpr int64_t kRows = 512;

Buffers with_hook(int64_t count, std::unique_ptr<BucketHook> hook) {
  Buffers b{at::empty({count}), {}, std::move(hook), {}};
  const int64_t rows = std::min(kRows, count), whole = count - count % rows;
  b.grads.push_back(b.in.narrow(0, 0, whole).view({rows, whole / rows}));
  if (whole < count) b.grads.push_back(b.in.narrow(0, whole, count - whole));
  return b;
}

void fill_seeded_input(Buffers& b, const Communicator& c, int64_t i) {
  fill_seeded(b.in, i, 0, input_of(c.rank()));
}

// Standard normal values, seeded per (operation, rank): a gradient's values are continuous, and
// top-k's selection takes longer on them than on the small integers, many of them equal, that
// the closed forms need (docs/collectives.md).
void fill_normal_input(Buffers& b, const Communicator& c, int64_t i) {
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(
      static_cast<uint64_t>(i) * 4096 + static_cast<uint64_t>(c.rank()));
  b.in.normal_(0, 1, generator);
}

void run_hook(Communicator& c, Buffers& b) {
  GradBucket bucket{0, b.in, b.grads};
  b.hook->run(bucket, c);
  b.hook->end_iteration();
}

int64_t not_finite(const at::Tensor& t) {
  return t.isfinite().logical_not().sum().item<int64_t>();
}

// A hook's own check of its result, beyond finite values: fp16's closed form, top-k's count.
using Check = int64_t (*)(const Buffers& b, const Communicator& c, int64_t iteration);

int64_t fp16_check(const Buffers& b, const Communicator& c, int64_t i) {
  // The mean of input_of(r) over the ranks: residue + (n - 1) / 2.
  at::Tensor want = at::empty_like(b.in);
  fill_seeded(want, i, 0, {1.0f, static_cast<float>(c.size() - 1) / 2});
  const at::Tensor close = (b.in - want).abs().le(want.abs() * 2e-3 + 2e-3);
  return close.logical_not().sum().item<int64_t>();  // NaN is not close
}

int64_t topk_check(const Buffers& b, const Communicator& c, int64_t) {
  const int64_t sent = c.size() * topk_count(SyncOptions{}.topk_fraction, b.in.numel());
  const int64_t nonzero = b.in.ne(0).sum().item<int64_t>();
  return not_finite(b.in) + std::max<int64_t>(0, nonzero - sent);
}

int64_t finite_check(const Buffers& b, const Communicator&, int64_t) {
  return not_finite(b.in);
}

}  // namespace

std::vector<Collective> hook_collectives() {
  std::vector<Collective> hooks;
  for (const SyncMethod& method : sync_methods()) {
    if (method.engine != Engine::hooked || !method.lossy) continue;
    const bool seeded = method.name == "fp16";  // the one with a closed form
    const Check check = seeded ? fp16_check : method.name == "topk" ? topk_check : finite_check;
    hooks.push_back({method.name + "_hook",
                     /*split=*/false, factor_one,
                     [name = method.name](int64_t count, const Communicator&) {
                       // The defaults, compressing from the first timed operation: the plain
                       // iterations before a hook's start (PowerSGD's, at least 2) run here,
                       // untimed.
                       SyncOptions options;
                       options.powersgd_start = 2;
                       Buffers b = with_hook(count, make_bucket_hook(name, options));
                       b.hook->end_iteration();
                       b.hook->end_iteration();
                       return b;
                     },
                     seeded ? fill_seeded_input : fill_normal_input, run_hook, check});
  }
  return hooks;
}

}  // namespace dtbench::bench
