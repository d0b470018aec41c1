#include "sync_checks.h"

#include <fmt/core.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "comm/allgather_text.h"
#include "common/rng.h"
#include "models/make_model.h"

namespace dtbench::testing {

Shapes awkward_shapes() {
  return {{0}, {1}, {3}, {2, 3}, {5, 7, 3}, {2}, {1001}};
}

Shapes vgg11_shapes() {
  Shapes shapes;
  for (const auto& p : make_model("vgg11")->parameters()) shapes.push_back(p.sizes().vec());
  return shapes;
}

namespace {

// Rank r's gradient element e of tensor i at step s: hash_keys({r, s, i, e}) as a float in
// [-1, 1). The keys before e are the same for a whole tensor, so they are mixed once per tensor
// (`tensor_keys`) and each element mixes in its own index: the same value, a quarter of the work
// (the VGG-11 checks make tens of millions of them).
uint64_t tensor_keys(int r, int s, size_t i) {
  return hash_keys({static_cast<uint64_t>(r), static_cast<uint64_t>(s), i});
}
float seeded_value(uint64_t keys, int64_t e) {
  const uint64_t bits = mix64(keys ^ static_cast<uint64_t>(e));
  return static_cast<float>(static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0);
}

// What every rank should hold after step s: the sum (or mean) of the n ranks' seeded gradients,
// in double. The same for every rank, so made once per process and kept for the ranks that ask
// after it (Gloo's ranks are threads of one process; each would otherwise make all n ranks'
// gradients again, n x n of them per step, which was most of a VGG-11 check's time).
using Aggregates = std::vector<at::Tensor>;
std::shared_ptr<const Aggregates> expected_aggregates(int n, int s, Aggregate aggregate,
                                                      const Shapes& shapes) {
  using Key = std::tuple<int, int, Aggregate, Shapes>;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const Aggregates>> made;
  const std::lock_guard<std::mutex> lock(mutex);
  Key key{n, s, aggregate, shapes};
  if (auto found = made.find(key); found != made.end()) return found->second;
  auto want = std::make_shared<Aggregates>();
  for (size_t i = 0; i < shapes.size(); ++i) {
    at::Tensor t = at::zeros(shapes[i], at::kDouble);
    double* data = t.data_ptr<double>();
    std::vector<uint64_t> keys;
    keys.reserve(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) keys.push_back(tensor_keys(r, s, i));
    for (int64_t e = 0; e < t.numel(); ++e) {
      for (uint64_t k : keys) data[e] += seeded_value(k, e);
      if (aggregate == Aggregate::mean) data[e] /= n;
    }
    want->push_back(t);
  }
  // A step's ranks ask within the step's collectives, so two steps at most are asked for at once.
  if (made.size() >= 2) made.clear();
  made.emplace(std::move(key), want);
  return want;
}

}  // namespace

at::Tensor seeded_gradient(int r, int s, size_t i, const std::vector<int64_t>& shape) {
  at::Tensor g = at::empty(shape, at::kFloat);
  float* data = g.data_ptr<float>();
  const uint64_t keys = tensor_keys(r, s, i);
  for (int64_t e = 0; e < g.numel(); ++e) data[e] = seeded_value(keys, e);
  return g;
}

namespace {

// max |got - want| / max |want| over every tensor (NaN where a value got is NaN).
double relative_error(const std::vector<at::Tensor>& params, int n, int step, Aggregate aggregate,
                      const Shapes& shapes) {
  const auto want = expected_aggregates(n, step, aggregate, shapes);
  double worst = 0, scale = 1e-30;
  // One pass over each tensor, no temporaries: VGG-11's would be hundreds of MB per rank.
  for (size_t i = 0; i < shapes.size(); ++i) {
    const at::Tensor& w = (*want)[i];
    if (w.numel() == 0) continue;
    const at::Tensor got = params[i].grad().to(at::kFloat).contiguous();
    const float* g = got.data_ptr<float>();
    const double* x = w.data_ptr<double>();
    for (int64_t e = 0; e < w.numel(); ++e) {
      const double off = std::abs(static_cast<double>(g[e]) - x[e]);
      if (std::isnan(off)) return off;  // a NaN is no sum
      worst = std::max(worst, off);
      scale = std::max(scale, std::abs(x[e]));
    }
  }
  return worst / scale;
}

}  // namespace

bool step_with(GradSync& sync, std::vector<at::Tensor>& params,
               const std::vector<at::Tensor>& grads) {
  for (auto& p : params) {
    if (p.grad().defined()) p.mutable_grad().zero_();
  }
  sync.before_forward();
  at::Tensor loss = at::zeros({}, at::kFloat);
  for (size_t i = 0; i < params.size(); ++i) loss = loss + (params[i] * grads[i]).sum();
  sync.before_backward(loss);
  loss.backward();
  return sync.finish();
}

double strategy_error(Communicator& comm, const std::string& name, SyncMode mode,
                      Aggregate aggregate, const Shapes& shapes, double bucket_mb) {
  SyncOptions options;
  options.aggregate = aggregate;
  options.mode = mode;
  options.bucket_mb = bucket_mb;
  return strategy_error(comm, name, options, shapes);
}

double strategy_error(Communicator& comm, const std::string& name, const SyncOptions& options,
                      const Shapes& shapes) {
  const SyncMode mode = options.mode;
  const Aggregate aggregate = options.aggregate;
  std::vector<at::Tensor> params;
  for (const auto& shape : shapes) params.push_back(torch::zeros(shape).requires_grad_());
  auto sync = make_sync(name, options);
  sync->setup(params, comm);
  double worst = 0;
  for (int step = 0; step < 2; ++step) {
    std::vector<at::Tensor> grads;
    grads.reserve(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      grads.push_back(seeded_gradient(comm.rank(), step, i, shapes[i]));
    }
    bool applied = step_with(*sync, params, grads);
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
  for (const auto& spec : sync_methods()) {
    if (spec.name == "none" || spec.lossy) continue;
    for (SyncMode m : spec.modes) pairs.emplace_back(spec.name, m);
  }
  return pairs;
}

bool supports(const std::string& strategy, const std::string& backend, Aggregate aggregate) {
  if (strategy != "c10d_ddp") return true;
  return backend == "gloo" && aggregate == Aggregate::mean;
}

std::vector<std::string> typed_operation_problems(Communicator& comm) {
  const int n = comm.size(), rank = comm.rank();
  const double triangle = n * (n + 1) / 2.0;  // the sum over ranks of rank + 1
  std::vector<std::string> problems;
  for (at::ScalarType type : kCarriedTypes) {
    auto opts = at::TensorOptions().dtype(type);
    auto full = [&](int64_t size, double value) { return at::full({size}, value, opts); };
    auto expect = [&](const std::string& what, const at::Tensor& got, const at::Tensor& want) {
      if (got.scalar_type() != type || !at::equal(got.to(at::kDouble), want.to(at::kDouble))) {
        problems.push_back(fmt::format("{} {} on rank {}: got {}, want {}", c10::toString(type),
                                       what, rank, got.to(at::kDouble).sum().item<double>(),
                                       want.to(at::kDouble).sum().item<double>()));
      }
    };
    at::Tensor t = full(5, rank + 1);
    const int64_t sent_before = comm.traffic().sent_bytes;
    comm.allreduce(t);
    expect("allreduce sum", t, full(5, triangle));
    const int64_t counted = comm.traffic().sent_bytes - sent_before;
    const int64_t own_bytes = n > 1 ? 5 * static_cast<int64_t>(t.element_size()) : 0;
    if (counted != own_bytes) {
      problems.push_back(fmt::format("{} allreduce counted {} bytes sent, not {}",
                                     c10::toString(type), counted, own_bytes));
    }
    t = full(5, rank + 1);
    comm.allreduce(t, ReduceOp::max);
    expect("allreduce max", t, full(5, n));
    t = full(7, rank + 1);
    comm.iallreduce(t)->wait();
    expect("iallreduce", t, full(7, triangle));
    t = full(3, rank + 1);
    comm.broadcast(t, n - 1);
    expect("broadcast", t, full(3, n));
    t = full(3, rank + 1);
    comm.reduce(t, 0);
    if (rank == 0) expect("reduce", t, full(3, triangle));
    at::Tensor ranks =
        at::arange(1, n + 1, at::kDouble).repeat_interleave(2).to(type);  // 1 1 2 2 ..
    at::Tensor out = at::empty({2 * n}, opts);
    comm.allgather(full(2, rank + 1), out);
    expect("allgather", out, ranks);
    out = at::empty({2 * n}, opts);
    comm.gather(full(2, rank + 1), out, 0);
    if (rank == 0) expect("gather", out, ranks);
    at::Tensor mine = at::empty({2}, opts);
    comm.scatter(rank == 0 ? ranks : at::Tensor(), mine, 0);
    expect("scatter", mine, full(2, rank + 1));
    comm.reduce_scatter(full(2 * n, rank + 1), mine);
    expect("reduce_scatter", mine, full(2, triangle));
    if (n > 1) {
      at::Tensor from_left = at::empty({4}, opts);
      auto receive = comm.irecv(from_left, (rank + n - 1) % n, 7);
      auto send = comm.isend(full(4, rank + 1), (rank + 1) % n, 7);
      send->wait();
      receive->wait();
      expect("isend/irecv", from_left, full(4, (rank + n - 1) % n + 1));
    }
  }
  std::string text =
      rank % 2 == 0 ? std::string(static_cast<size_t>(rank) * 3, 'x') + "\n{}" : std::string();
  auto texts = allgather_text(comm, text);
  for (int r = 0; r < n; ++r) {
    std::string want = r % 2 == 0 ? std::string(static_cast<size_t>(r) * 3, 'x') + "\n{}" : "";
    if (texts.size() != static_cast<size_t>(n) || texts[r] != want) {
      problems.push_back(fmt::format("allgather_text on rank {}: rank {}'s text wrong", rank, r));
    }
  }
  std::vector<double> values = {1.0 + 1e-12 * (rank + 1), -static_cast<double>(rank)};
  max_over_ranks(comm, values);
  if (values[0] != 1.0 + 1e-12 * n || values[1] != 0.0) {
    problems.push_back(
        fmt::format("max_over_ranks on rank {}: {} and {}", rank, values[0], values[1]));
  }
  return problems;
}

std::vector<std::string> split_problems(Communicator& comm) {
  const int n = comm.size(), rank = comm.rank();
  std::vector<std::string> problems;
  auto complain = [&](const std::string& what) {
    problems.push_back(fmt::format("rank {} of {}: {}", rank, n, what));
  };
  std::unique_ptr<Communicator> part = comm.split(rank % 2);
  const int same_parity = (n - rank % 2 + 1) / 2;  // ranks 0, 2, .. or 1, 3, .. below n
  if (!part || part->size() != same_parity || part->rank() != rank / 2) {
    complain(fmt::format("parity part is rank {} of {}, not {} of {}", part ? part->rank() : -1,
                         part ? part->size() : 0, rank / 2, same_parity));
    return problems;
  }
  at::Tensor t = at::full({3}, rank + 1, at::kLong);
  const Traffic before = comm.traffic();
  part->allreduce(t);
  const int64_t counted = comm.traffic().sent_bytes - before.sent_bytes;
  int64_t want = 0;
  for (int r = rank % 2; r < n; r += 2) want += r + 1;
  if (t[0].item<int64_t>() != want) {
    complain(fmt::format("parity allreduce gave {}, not {}", t[0].item<int64_t>(), want));
  }
  if (counted != (same_parity > 1 ? 3 * 8 : 0)) {
    complain(fmt::format("the part's allreduce counted {} bytes in the whole", counted));
  }
  std::unique_ptr<Communicator> first = comm.split(rank == 0 ? 0 : -1);
  if ((first != nullptr) != (rank == 0) || (first && first->size() != 1)) {
    complain("only rank 0 should get a communicator, of size 1");
  }
  return problems;
}

}  // namespace dtbench::testing
