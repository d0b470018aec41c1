// The one table of gradient-synchronisation methods.
#include "catalogue/methods.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "catalogue/compression_rules.h"
#include "common/error.h"
#include "common/registry.h"

namespace dtbench {
namespace {

const std::vector<SyncMode> kEveryMode = {SyncMode::blocking, SyncMode::overlap, SyncMode::stale};
const std::vector<SyncMode> kBucketModes = {SyncMode::overlap, SyncMode::blocking};

SyncMethod per_tensor(const char* name, const char* description, std::vector<CollectiveCall> calls,
                      PricedAs priced_as, bool in_what_if = false,
                      std::vector<CollectiveCall> or_calls = {}) {
  SyncMethod m{name,       description,      Engine::per_tensor, false,
               kEveryMode, std::move(calls), in_what_if,         "",
               false,      priced_as};
  m.or_priced_by = std::move(or_calls);
  return m;
}

// A lossy hook on bucketed's buckets, priced by the sweep of its whole operation (<name>_hook)
// or, without one, by what it sends.
SyncMethod lossy_hook(const char* name, const char* description, SendRule sends) {
  return {name,
          description,
          Engine::hooked,
          true,
          kBucketModes,
          {{std::string(name) + "_hook"}},
          /*in_what_if=*/true,
          "",
          false,
          PricedAs::ring_allreduce,
          sends};
}

double bytes_of(const std::vector<BucketParameter>& bucket) {
  double bytes = 0;
  for (const auto& p : bucket) bytes += p.bytes;
  return bytes;
}

// fp16: an allreduce of half the bytes.
BucketSend fp16_sends(const std::vector<BucketParameter>& bucket, const SyncOptions&, int) {
  const double half = bytes_of(bucket) / 2;
  return {{{PricedAs::ring_allreduce, half}}, half};
}

// topk: k = ceil(fraction x elements) (index, value) pairs of 4 bytes each, gathered by two ring
// allgathers; each rank receives 4 n k bytes of each.
BucketSend topk_sends(const std::vector<BucketParameter>& bucket, const SyncOptions& o, int ranks) {
  const auto elements = static_cast<int64_t>(std::llround(bytes_of(bucket) / 4));
  const auto k = static_cast<double>(topk_count(o.topk_fraction, elements));
  return {{{PricedAs::ring_allgather, 4 * k, 2}}, 4 * ranks * k};
}

// powersgd: allreduces of the tensors it leaves as they are, of P (n_i x r_i summed) and of Q
// (m_i x r_i), each matrix compressed where powersgd_compressed_rank says so; before
// --powersgd-start, the bucket as it is.
BucketSend powersgd_sends(const std::vector<BucketParameter>& bucket, const SyncOptions& o, int) {
  double uncompressed = 0, p = 0, q = 0;
  for (const auto& parameter : bucket) {
    const double elements = parameter.bytes / 4;
    const int64_t n = parameter.shape.empty() ? 0 : parameter.shape[0];
    const int64_t m = n > 0 ? static_cast<int64_t>(elements) / n : 0;
    const auto r =
        n > 0 ? static_cast<double>(powersgd_compressed_rank(n, m, o.powersgd_rank)) : 0.0;
    if (r > 0) {
      p += static_cast<double>(n) * r;
      q += static_cast<double>(m) * r;
    } else {
      uncompressed += elements;
    }
  }
  BucketSend send;
  for (double part : {uncompressed, p, q}) {
    if (part > 0) send.calls.push_back({PricedAs::ring_allreduce, 4 * part});
  }
  send.sent_bytes = 4 * (uncompressed + p + q);
  send.compresses_from = o.powersgd_start;
  return send;
}

}  // namespace

const std::vector<SyncMethod>& sync_methods() {
  static const std::vector<SyncMethod> methods = {
      {"none",
       "nothing moves: every rank keeps its own gradient",
       Engine::none,
       false,
       kEveryMode,
       {},
       false,
       "",
       false,
       PricedAs::nothing},
      per_tensor("gather_scatter", "per tensor: gather to rank 0, sum there, scatter back",
                 {{"gather_scatter"}}, PricedAs::gather_scatter, /*in_what_if=*/true),
      per_tensor("reduce_broadcast", "per tensor: reduce to rank 0, broadcast",
                 {{"reduce_broadcast"}}, PricedAs::tree_reduce_broadcast, /*in_what_if=*/false,
                 {{"reduce"}, {"broadcast"}}),
      per_tensor("allreduce", "per tensor: the backend's allreduce(sum)", {{"allreduce"}},
                 PricedAs::ring_allreduce, /*in_what_if=*/true),
      per_tensor("allgather", "per tensor: allgather, every rank sums locally",
                 {{"allgather", /*times_ranks=*/true}}, PricedAs::ring_allgather),
      per_tensor("ring_reduce",
                 "per tensor, hand-written: chain reduce around the ring to "
                 "rank 0, then pass the sum around",
                 {{"ring_reduce"}}, PricedAs::chain_reduce_broadcast, /*in_what_if=*/true),
      per_tensor("ring_allreduce",
                 "per tensor, hand-written on isend/irecv: reduce-scatter + "
                 "allgather in n chunks",
                 {{"ring_allreduce"}}, PricedAs::ring_allreduce),
      {"bucketed",
       "DDP's algorithm, ours: reverse-order flat buckets of --bucket-mb, "
       "iallreduce launched from gradient hooks during backward",
       Engine::bucketed,
       false,
       kBucketModes,
       {},
       /*in_what_if=*/true,
       "",
       false,
       PricedAs::ring_allreduce},
      {"c10d_ddp",
       "the real PyTorch DDP engine: c10d::Reducer over ProcessGroupGloo (--backend gloo)",
       Engine::bucketed,
       false,
       {SyncMode::overlap},
       {},
       false,
       "gloo",
       /*waits_in_backward=*/true,
       PricedAs::ring_allreduce},
      lossy_hook("fp16",
                 "buckets as bucketed, each cast to float16 and allreduced in float16 "
                 "(PyTorch's fp16_compress_hook)",
                 fp16_sends),
      lossy_hook("powersgd",
                 "buckets as bucketed, each matrix sent as rank --powersgd-rank factors with error "
                 "feedback after --powersgd-start plain iterations (PyTorch's powerSGD_hook)",
                 powersgd_sends),
      lossy_hook("topk",
                 "buckets as bucketed, each sending its --topk-fraction largest entries by "
                 "allgather of (index, value), the rest kept as error feedback",
                 topk_sends),
      {"hierarchical",
       "buckets as bucketed, each summed within the host to its first rank, allreduced "
       "among those, broadcast within the host (hosts: --ranks-per-host or host names)",
       Engine::hooked,
       false,
       kBucketModes,
       {},
       false,
       "",
       false,
       PricedAs::two_level},
      {"local_sgd",
       "no gradient moves: each rank steps alone, parameters averaged every "
       "--local-sgd-period steps",
       Engine::local,
       /*lossy=*/true,
       {SyncMode::blocking},
       {},
       /*in_what_if=*/true,
       "",
       false,
       PricedAs::ring_allreduce},
  };
  return methods;
}

const SyncMethod& find_method(const std::string& name) {
  return find_by_name(sync_methods(), name, "sync strategy");
}

const SyncMethod* method_named(const std::string& name) {
  for (const auto& m : sync_methods()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

bool bucketed_engine(const std::string& name) {
  const SyncMethod* m = method_named(name);
  return m && (m->engine == Engine::bucketed || m->engine == Engine::hooked);
}

bool same_swept_options(const SyncOptions& a, const SyncOptions& b) {
  std::vector<double> fixed_a, fixed_b;
  auto collect = [](std::vector<double>& into) {
    return [&into](const OptionSpec& spec, const auto& value) {
      if (spec.fixed_in_sweep) into.push_back(static_cast<double>(value));
    };
  };
  each_sync_option(a, collect(fixed_a));
  each_sync_option(b, collect(fixed_b));
  return fixed_a == fixed_b;
}

bool is_lossy(const std::string& name) {
  const SyncMethod* m = method_named(name);
  return m && m->lossy;
}

std::string methods_table() {
  std::string table = "| `--sync` | what moves | modes |\n|---|---|---|\n";
  for (const auto& m : sync_methods()) {
    std::vector<std::string> modes;
    for (SyncMode mode : m.modes) modes.push_back(to_string(mode));
    table += fmt::format("| `{}` | {}{} | {} |\n", m.name, m.description, m.lossy ? " (lossy)" : "",
                         fmt::join(modes, ", "));
  }
  return table;
}

std::string to_string(SyncMode mode) {
  switch (mode) {
    case SyncMode::blocking:
      return "blocking";
    case SyncMode::overlap:
      return "overlap";
    case SyncMode::stale:
      return "stale";
  }
  return "?";
}

std::string to_string(Aggregate aggregate) {
  return aggregate == Aggregate::mean ? "mean" : "sum";
}

SyncMode parse_mode(const std::string& name) {
  for (SyncMode m : kEveryMode) {
    if (to_string(m) == name) return m;
  }
  throw UserError(fmt::format("unknown mode '{}' (known: blocking, overlap, stale)", name));
}

void require_mode(const SyncMethod& method, SyncMode mode) {
  if (std::find(method.modes.begin(), method.modes.end(), mode) != method.modes.end()) return;
  std::vector<std::string> names;
  for (SyncMode m : method.modes) names.push_back(to_string(m));
  throw UserError(fmt::format("sync {} has no mode {} (it has: {})", method.name, to_string(mode),
                              fmt::join(names, ", ")));
}

std::string default_sync(int world_size) {
  return world_size > 1 ? "allreduce" : "none";
}

SyncMode default_mode_of(const std::string& sync) {
  return find_method(sync.empty() ? default_sync(2) : sync).modes.front();
}

Aggregate parse_aggregate(const std::string& name) {
  if (name == "mean") return Aggregate::mean;
  if (name == "sum") return Aggregate::sum;
  throw UserError(fmt::format("unknown aggregate '{}' (known: mean, sum)", name));
}

}  // namespace dtbench
