#include "compression_checks.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "sync/grad_sync.h"
#include "sync_checks.h"

namespace dtbench::testing {
namespace {

// Shapes with matrices PowerSGD compresses at rank 1 ((16, 8), (4, 18), (32, 12)) and vectors it
// does not.
const Shapes kShapes = {{16, 8}, {16}, {4, 3, 3, 2}, {32, 12}, {5}};
constexpr double kOneBucketMb = 64;  // every parameter in one bucket

SyncOptions options_for(SyncMode mode, Aggregate aggregate = Aggregate::mean) {
  SyncOptions o;
  o.mode = mode;
  o.aggregate = aggregate;
  o.bucket_mb = kOneBucketMb;
  return o;
}

// Parameters of these shapes with a strategy set up on them; step() hands the strategy one
// gradient per parameter through backward (so that overlap mode's hooks fire) and returns what
// it left to apply.
class Stepper {
 public:
  Stepper(Communicator& comm, const std::string& name, const SyncOptions& options,
          const Shapes& shapes)
      : sync_(make_sync(name, options)) {
    for (const auto& shape : shapes) params_.push_back(torch::zeros(shape).requires_grad_());
    sync_->setup(params_, comm);
  }

  std::vector<at::Tensor> step(const std::vector<at::Tensor>& grads) {
    step_with(*sync_, params_, grads);
    std::vector<at::Tensor> applied;
    for (auto& p : params_) applied.push_back(p.grad().clone());
    sync_->after_step();
    return applied;
  }

 private:
  std::vector<at::Tensor> params_;
  std::unique_ptr<GradSync> sync_;
};

std::vector<at::Tensor> seeded(int rank, int step, const Shapes& shapes) {
  std::vector<at::Tensor> grads;
  for (size_t i = 0; i < shapes.size(); ++i)
    grads.push_back(seeded_gradient(rank, step, i, shapes[i]));
  return grads;
}

// max |a - b| / max |b| over every tensor.
double relative(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  double worst = 0, scale = 1e-30;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].numel() == 0) continue;
    worst =
        std::max(worst, (a[i].to(at::kDouble) - b[i].to(at::kDouble)).abs().max().item<double>());
    scale = std::max(scale, b[i].abs().max().item<double>());
  }
  return worst / scale;
}

// The mean over ranks of make(r), computed in double on every rank.
template <typename Make>
std::vector<at::Tensor> mean_over_ranks(int n, const Make& make) {
  std::vector<at::Tensor> mean;
  for (int r = 0; r < n; ++r) {
    auto grads = make(r);
    for (size_t i = 0; i < grads.size(); ++i) {
      at::Tensor g = grads[i].to(at::kDouble) / n;
      if (r == 0) {
        mean.push_back(g);
      } else {
        mean[i] += g;
      }
    }
  }
  return mean;
}

void check(std::vector<std::string>& problems, bool ok, const std::string& what) {
  if (!ok) problems.push_back(what);
}

int64_t elements(const Shapes& shapes) {
  int64_t total = 0;
  for (const auto& shape : shapes) total += c10::multiply_integers(shape);
  return total;
}

}  // namespace

std::vector<std::string> fp16_problems(Communicator& comm) {
  std::vector<std::string> problems;
  for (SyncMode mode : {SyncMode::overlap, SyncMode::blocking}) {
    for (Aggregate aggregate : {Aggregate::mean, Aggregate::sum}) {
      // Values in [-1, 1): float16 keeps 11 significant bits; each of the n - 1 additions and
      // the casts round once.
      double error = strategy_error(comm, "fp16", options_for(mode, aggregate), awkward_shapes());
      check(problems, error >= 0 && error <= 2e-3,
            fmt::format("fp16 {} {}: relative error {} (float16 rounding: <= 2e-3)",
                        to_string(mode), to_string(aggregate), error));
    }
  }
  return problems;
}

std::vector<std::string> topk_problems(Communicator& comm) {
  std::vector<std::string> problems;
  for (SyncMode mode : {SyncMode::overlap, SyncMode::blocking}) {
    SyncOptions all = options_for(mode);
    all.topk_fraction = 1;
    double error = strategy_error(comm, "topk", all, awkward_shapes());
    check(problems, error >= 0 && error <= 1e-6,
          fmt::format("topk k=100% {}: relative error {} (<= 1e-6)", to_string(mode), error));
  }
  // One gradient, then zeros: a quarter of each bucket goes per step, what stays behind goes
  // later, so the applied gradients add up to the mean after four steps, not before.
  SyncOptions quarter = options_for(SyncMode::blocking);
  quarter.topk_fraction = 0.25;
  Stepper stepper(comm, "topk", quarter, kShapes);
  const auto want = mean_over_ranks(comm.size(), [](int r) { return seeded(r, 0, kShapes); });
  std::vector<at::Tensor> zeros, total;
  for (const auto& shape : kShapes) zeros.push_back(torch::zeros(shape));
  for (int step = 0; step < 4; ++step) {
    auto applied = stepper.step(step == 0 ? seeded(comm.rank(), 0, kShapes) : zeros);
    if (step == 0) {
      total = applied;
      double after_one = relative(total, want);
      check(problems, after_one > 0.1,
            fmt::format("topk k=25%: one step already sent it all (relative error {})", after_one));
    } else {
      for (size_t i = 0; i < total.size(); ++i) total[i] += applied[i];
    }
  }
  double after_four = relative(total, want);
  check(problems, after_four <= 1e-6,
        fmt::format("topk k=25%: after four steps the applied gradients miss the mean by {} "
                    "(error feedback: <= 1e-6)",
                    after_four));
  return problems;
}

std::vector<std::string> powersgd_problems(Communicator& comm) {
  std::vector<std::string> problems;
  SyncOptions late = options_for(SyncMode::blocking);
  late.powersgd_start = 1000;
  double error = strategy_error(comm, "powersgd", late, awkward_shapes());
  check(problems, error >= 0 && error <= 1e-6,
        fmt::format("powersgd before its start: relative error {} (<= 1e-6)", error));

  // Rank r's gradient of each matrix is (r + 1) u v^T: every mean is of rank 1, which rank-1
  // PowerSGD carries exactly, on its first compressed step (random Q) and the next (warm start).
  auto rank_one = [](int r) {
    std::vector<at::Tensor> grads;
    for (const auto& shape : kShapes) {
      const int64_t rows = shape[0], columns = c10::multiply_integers(shape) / rows;
      at::Tensor u = torch::linspace(-1, 1, rows) + 0.1;
      at::Tensor v = torch::cos(torch::arange(columns, torch::kFloat));
      grads.push_back((torch::outer(u, v) * (r + 1)).reshape(shape));
    }
    return grads;
  };
  for (SyncMode mode : {SyncMode::overlap, SyncMode::blocking}) {
    SyncOptions soon = options_for(mode);
    soon.powersgd_start = 2;
    Stepper stepper(comm, "powersgd", soon, kShapes);
    const auto want = mean_over_ranks(comm.size(), rank_one);
    for (int step = 0; step < 4; ++step) {
      double e = relative(stepper.step(rank_one(comm.rank())), want);
      check(problems, e <= 1e-5,
            fmt::format("powersgd {} step {} on rank-1 gradients: relative error {} (<= 1e-5)",
                        to_string(mode), step, e));
    }
  }
  return problems;
}

std::vector<std::string> hierarchical_problems(Communicator& comm) {
  std::vector<std::string> problems;
  Shapes shapes = awkward_shapes();
  shapes.insert(shapes.end(), kShapes.begin(), kShapes.end());
  for (int ranks_per_host : {0, 1, 2, 3}) {
    for (SyncMode mode : {SyncMode::blocking, SyncMode::overlap}) {
      for (Aggregate aggregate : {Aggregate::mean, Aggregate::sum}) {
        SyncOptions options = options_for(mode, aggregate);
        options.bucket_mb = 0.0005;  // several buckets
        options.ranks_per_host = ranks_per_host;
        const double error = strategy_error(comm, "hierarchical", options, shapes);
        check(problems, error >= 0 && error <= 1e-6,
              fmt::format("hierarchical {} {}, {} ranks per host: relative error {} (<= 1e-6)",
                          to_string(mode), to_string(aggregate), ranks_per_host, error));
      }
    }
  }
  return problems;
}

std::vector<std::string> payload_problems(Communicator& comm) {
  std::vector<std::string> problems;
  const int n = comm.size();
  if (n == 1) return problems;  // nothing moves
  const int64_t total = elements(kShapes);
  // Bytes this rank hands over and receives in the step after `warmup` steps.
  auto payload = [&](const std::string& name, const SyncOptions& options, int warmup) {
    Stepper stepper(comm, name, options, kShapes);
    for (int s = 0; s < warmup; ++s) stepper.step(seeded(comm.rank(), s, kShapes));
    Traffic before = comm.traffic();
    stepper.step(seeded(comm.rank(), warmup, kShapes));
    Traffic after = comm.traffic();
    return Traffic{after.sent_bytes - before.sent_bytes,
                   after.received_bytes - before.received_bytes};
  };
  auto expect = [&](const std::string& what, Traffic got, int64_t sent, int64_t received) {
    check(problems, got.sent_bytes == sent && got.received_bytes == received,
          fmt::format("{}: {} bytes sent, {} received; the formula says {} and {}", what,
                      got.sent_bytes, got.received_bytes, sent, received));
  };

  // fp16: the bucket's allreduce in 2 bytes an element.
  expect("fp16", payload("fp16", options_for(SyncMode::blocking), 0), 2 * total, 2 * total);

  // topk: k = ceil(f E) pairs of a 4-byte index and a 4-byte value, allgathered.
  SyncOptions topk = options_for(SyncMode::blocking);
  topk.topk_fraction = 0.1;
  const auto k = static_cast<int64_t>(std::ceil(0.1 * static_cast<double>(total)));
  expect("topk", payload("topk", topk, 0), 8 * k, 8 * k * (n - 1));

  // powersgd: per matrix (n_i, m_i) worth compressing, P (n_i r) and Q (m_i r); the rest whole.
  SyncOptions powersgd = options_for(SyncMode::blocking);
  powersgd.powersgd_start = 2;
  powersgd.powersgd_rank = 2;
  int64_t floats = 0;
  for (const auto& shape : kShapes) {
    const int64_t rows = shape[0], columns = c10::multiply_integers(shape) / rows;
    const int64_t r = std::min<int64_t>({rows, columns, 2});
    floats += (rows + columns) * r * 2 < rows * columns ? (rows + columns) * r : rows * columns;
  }
  expect("powersgd before its start", payload("powersgd", powersgd, 1), 4 * total, 4 * total);
  expect("powersgd", payload("powersgd", powersgd, 2), 4 * floats, 4 * floats);

  // local_sgd: every parameter, every H steps; nothing in between.
  SyncOptions local = options_for(SyncMode::blocking);
  local.local_sgd_period = 2;
  expect("local_sgd between averages", payload("local_sgd", local, 0), 0, 0);
  expect("local_sgd averaging", payload("local_sgd", local, 1), 4 * total, 4 * total);

  // hierarchical, hosts of 2 ranks: a rank sends its buckets to its host's leader and receives
  // the sum back; a leader receives from the others on its host, allreduces among the leaders
  // if there are several hosts and broadcasts if it is not alone. The first step splits.
  SyncOptions hierarchical = options_for(SyncMode::blocking);
  hierarchical.ranks_per_host = 2;
  const int64_t bytes = 4 * total, rank = comm.rank();
  const int64_t on_host = std::min<int64_t>(2, n - rank / 2 * 2), hosts = (n + 1) / 2;
  const int64_t between = hosts > 1 ? bytes : 0;
  const bool leader = rank % 2 == 0;
  expect("hierarchical", payload("hierarchical", hierarchical, 0),
         leader ? between + (on_host > 1 ? bytes : 0) : bytes,
         leader ? between + (on_host - 1) * bytes : bytes);
  return problems;
}

}  // namespace dtbench::testing
