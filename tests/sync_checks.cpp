#include "sync_checks.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "common/rng.h"
#include "models/models.h"

namespace dtbench::testing {

Shapes awkward_shapes() {
  return {{0}, {1}, {3}, {2, 3}, {5, 7, 3}, {2}, {1001}};
}

Shapes vgg11_shapes() {
  Shapes shapes;
  for (const auto& p : find_model("vgg11").make()->parameters()) shapes.push_back(p.sizes().vec());
  return shapes;
}

namespace {

// The gradient rank r produces for tensor i at step s: values in [-1, 1).
at::Tensor seeded_gradient(int r, int s, size_t i, const std::vector<int64_t>& shape) {
  at::Tensor g = at::empty(shape, at::kFloat);
  float* data = g.data_ptr<float>();
  for (int64_t e = 0; e < g.numel(); ++e) {
    uint64_t bits = hash_keys(
        {static_cast<uint64_t>(r), static_cast<uint64_t>(s), i, static_cast<uint64_t>(e)});
    data[e] = static_cast<float>(static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0);
  }
  return g;
}

// max |got - want| / max |want| over every tensor.
double relative_error(const std::vector<at::Tensor>& params, int n, int step, Aggregate aggregate,
                      const Shapes& shapes) {
  double worst = 0, scale = 1e-30;
  for (size_t i = 0; i < shapes.size(); ++i) {
    at::Tensor want = at::zeros(shapes[i], at::kDouble);
    for (int r = 0; r < n; ++r) want += seeded_gradient(r, step, i, shapes[i]).to(at::kDouble);
    if (aggregate == Aggregate::mean) want /= n;
    if (want.numel() == 0) continue;
    at::Tensor got = params[i].grad().to(at::kDouble);
    worst = std::max(worst, (got - want).abs().max().item<double>());
    scale = std::max(scale, want.abs().max().item<double>());
  }
  return worst / scale;
}

}  // namespace

double strategy_error(Communicator& comm, const std::string& name, SyncMode mode,
                      Aggregate aggregate, const Shapes& shapes, double bucket_mb) {
  std::vector<at::Tensor> params;
  for (const auto& shape : shapes) params.push_back(torch::zeros(shape).requires_grad_());
  auto sync = find_sync(name).make({aggregate, mode, bucket_mb});
  sync->setup(params, comm);
  double worst = 0;
  for (int step = 0; step < 2; ++step) {
    for (auto& p : params) {
      if (p.grad().defined()) p.mutable_grad().zero_();
    }
    sync->before_forward();
    at::Tensor loss = at::zeros({}, at::kFloat);
    for (size_t i = 0; i < params.size(); ++i) {
      loss = loss + (params[i] * seeded_gradient(comm.rank(), step, i, shapes[i])).sum();
    }
    sync->before_backward(loss);
    loss.backward();
    bool applied = sync->finish();
    bool stale = mode == SyncMode::stale;
    if (applied != (!stale || step > 0)) return -1;
    // Stale mode applies the previous step's aggregate.
    if (applied) {
      worst = std::max(
          worst, relative_error(params, comm.size(), stale ? step - 1 : step, aggregate, shapes));
    }
    if (step == 0 && sync->plans_from_timeline()) {
      // As the trainer does after the first iteration: a Timeline, the same on every rank,
      // whose gradients arrive a second apart over a fast link, so that each parameter gets a
      // bucket of its own (empty ones joining a neighbour) and the second step runs on them.
      Timeline timeline{{}, 1e-3, 1e9};
      for (size_t i = 0; i < params.size(); ++i) timeline.ready_s.push_back(params.size() - i);
      sync->plan(timeline);
    }
  }
  return worst;
}

std::vector<std::pair<std::string, SyncMode>> all_strategy_modes() {
  std::vector<std::pair<std::string, SyncMode>> pairs;
  for (const auto& spec : sync_registry()) {
    if (spec.name == "none") continue;
    for (SyncMode m : spec.modes) pairs.emplace_back(spec.name, m);
  }
  return pairs;
}

bool supports(const std::string& strategy, const std::string& backend, Aggregate aggregate) {
  if (strategy != "c10d_ddp") return true;
  return backend == "gloo" && aggregate == Aggregate::mean;
}

}  // namespace dtbench::testing
