// powersgd: as PyTorch's powerSGD_hook (torch/distributed/algorithms/ddp_comm_hooks; 1.13 and 2.6
// alike), per bucket, with its defaults: min_compression_rate 2, error feedback, warm start, no
// batching of same-shaped tensors, orthogonalization epsilon 0, random seed 0. Until
// --powersgd-start a plain allreduce of the bucket. Then each gradient viewed as an n x m matrix M
// is sent as two rank-r factors: P = M Q is allreduced and orthogonalised, Q = M^T P is allreduced,
// and M ~ P Q^T / world size. Gradients that would not shrink by half ((n + m) r * 2 >= n m:
// biases, small layers) go uncompressed in one allreduce. What the approximation misses is added to
// the bucket's next gradient (error feedback); Q starts from the previous step's (warm start).
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "catalogue/compression_rules.h"
#include "common/error.h"
#include "sync/compression.h"

namespace dtbench {
namespace {

// Python's: Gram-Schmidt on each column for rank <= 2, QR otherwise; matrices (1, rows, r).
void orthogonalize(at::Tensor& matrices) {
  const int64_t columns = matrices.size(2);
  if (columns > 2) {
    matrices.copy_(std::get<0>(at::linalg_qr(matrices)));
    return;
  }
  for (int64_t i = 0; i < columns; ++i) {
    at::Tensor column = matrices.narrow(2, i, 1);
    at::Tensor norm = at::frobenius_norm(column, {1}, /*keepdim=*/true);
    if (norm.item<float>() == 0) {
      column.zero_();  // a vanished column (Python means to do this; epsilon 0 would divide by 0)
    } else {
      column.div_(norm);
    }
    if (i + 1 < columns) {
      at::Tensor rest = matrices.narrow(2, i + 1, columns - i - 1);
      rest.sub_(at::sum(column * rest, {1}, /*keepdim=*/true) * column);
    }
  }
}

// One compressed gradient: its matrix view into the bucket and its factors' views into the
// bucket's P and Q memory, each with a batch dimension of 1 as Python's.
struct Factored {
  at::Tensor matrix;  // (1, n, m)
  at::Tensor p;       // (1, n, r)
  at::Tensor q;       // (1, m, r)
};

struct BucketState {
  at::Tensor error;  // what the approximation missed, added to the next gradient
  at::Tensor p_memory, q_memory;
};

class PowerSgdHook : public BucketHook {
 public:
  explicit PowerSgdHook(const SyncOptions& options)
      : mean_(options.aggregate == Aggregate::mean),
        rank_(options.powersgd_rank),
        start_(options.powersgd_start) {
    require(rank_ >= 1, "--powersgd-rank must be at least 1");
    require(start_ >= 2,
            "--powersgd-start must be at least 2 (error feedback and warm start need plain "
            "iterations first)");
  }

  void run(GradBucket& bucket, Communicator& comm) override {
    at::Tensor& input = bucket.buffer;
    if (iteration_ < start_) {
      if (mean_) input.div_(comm.size());
      comm.allreduce(input);
      return;
    }
    BucketState& state = states_[bucket.index];
    if (state.error.defined()) {
      input.add_(state.error);
    } else {
      state.error = at::zeros_like(input);
    }
    const at::Tensor input_copy = input.clone();

    std::vector<at::Tensor> compress, uncompressed;
    int64_t p_total = 0, q_total = 0;
    for (const at::Tensor& grad : bucket.grads) {
      if (grad.dim() == 0 || grad.numel() == 0) {
        uncompressed.push_back(grad);
        continue;
      }
      at::Tensor matrix = grad.view({grad.size(0), -1});
      const int64_t n = matrix.size(0), m = matrix.size(1);
      const int64_t r = powersgd_compressed_rank(n, m, rank_);
      if (r > 0) {
        compress.push_back(matrix);
        p_total += n * r;
        q_total += m * r;
      } else {
        uncompressed.push_back(grad);
      }
    }
    const bool fresh = !state.p_memory.defined();
    if (fresh) {
      state.p_memory = at::empty({p_total}, input.options());
      state.q_memory = at::empty({q_total}, input.options());
    }
    std::vector<Factored> factors = lay_out(by_shape(compress), state);
    if (fresh) {
      at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(next_seed());
      for (auto& f : factors) {
        f.q.copy_(at::randn(f.q.sizes(), generator, input.options()));
        orthogonalize(f.q);
      }
    } else {
      for (auto& f : factors) orthogonalize(f.q);
    }
    for (auto& f : factors) at::bmm_out(f.p, f.matrix, f.q);

    if (!uncompressed.empty()) {
      std::vector<at::Tensor> flat;
      flat.reserve(uncompressed.size());
      for (const auto& t : uncompressed) flat.push_back(t.reshape({-1}));
      at::Tensor memory = at::cat(flat);
      if (memory.numel() > 0) comm.allreduce(memory);
      if (mean_) memory.div_(comm.size());
      int64_t at = 0;
      for (auto& t : uncompressed) {
        t.copy_(memory.narrow(0, at, t.numel()).view(t.sizes()));
        at += t.numel();
      }
    }
    if (!factors.empty()) {
      comm.allreduce(state.p_memory);
      for (auto& f : factors) orthogonalize(f.p);
      for (auto& f : factors) at::bmm_out(f.q, f.matrix.transpose(1, 2), f.p);
      comm.allreduce(state.q_memory);
      if (mean_) state.q_memory.div_(comm.size());
      for (auto& f : factors) at::bmm_out(f.matrix, f.p, f.q.transpose(1, 2));
    }
    state.error = input_copy - input;
  }

  void end_iteration() override { ++iteration_; }

 private:
  // The matrices grouped by shape, groups in order of first appearance (Python's defaultdict
  // over shapes): the order in which P and Q are laid out and Q is drawn.
  static std::vector<at::Tensor> by_shape(const std::vector<at::Tensor>& matrices) {
    std::vector<std::vector<int64_t>> shapes;
    std::vector<std::vector<at::Tensor>> groups;
    for (const auto& m : matrices) {
      auto shape = m.sizes().vec();
      auto found = std::find(shapes.begin(), shapes.end(), shape);
      if (found == shapes.end()) {
        shapes.push_back(shape);
        groups.push_back({m});
      } else {
        groups[found - shapes.begin()].push_back(m);
      }
    }
    std::vector<at::Tensor> ordered;
    for (auto& g : groups) ordered.insert(ordered.end(), g.begin(), g.end());
    return ordered;
  }

  std::vector<Factored> lay_out(const std::vector<at::Tensor>& matrices,
                                const BucketState& state) const {
    std::vector<Factored> factors;
    int64_t p_at = 0, q_at = 0;
    for (const auto& matrix : matrices) {
      const int64_t n = matrix.size(0), m = matrix.size(1);
      const int64_t r = std::min({n, m, static_cast<int64_t>(rank_)});
      factors.push_back({matrix.unsqueeze(0), state.p_memory.narrow(0, p_at, n * r).view({1, n, r}),
                         state.q_memory.narrow(0, q_at, m * r).view({1, m, r})});
      p_at += n * r;
      q_at += m * r;
    }
    return factors;
  }

  // numpy's RandomState(0).randint(1_000_000_000), as Python draws the seed for each fresh Q:
  // 32-bit Mersenne Twister outputs masked to 30 bits, those above the bound rejected.
  uint64_t next_seed() {
    constexpr uint32_t kBound = 999'999'999, kMask = (1U << 30) - 1;
    uint32_t value = 0;
    do {
      value = static_cast<uint32_t>(seeds_()) & kMask;
    } while (value > kBound);
    return value;
  }

  bool mean_;
  int rank_;
  int64_t start_;
  int64_t iteration_ = 0;
  std::mt19937 seeds_{0};
  std::map<size_t, BucketState> states_;
};

}  // namespace

std::unique_ptr<BucketHook> make_powersgd_hook(const SyncOptions& options) {
  return std::make_unique<PowerSgdHook>(options);
}

}  // namespace dtbench
