// bench_train: full training iterations, one benchmark per (model, strategy, mode, global batch,
// bucket MiB, aggregate, backend).
//   mpirun -np 4 --oversubscribe build/bench_train --data-dir $DATA_DIR
//       --benchmark_filter='vgg11/.*/allreduce' --benchmark_out=train.json
//       --benchmark_out_format=json
// Each benchmark trains 40 iterations with dtbench's trainer, whose timing core measures them
// (the slowest rank's time per iteration); iteration 0 is warm-up, and iterations 1..39 are
// handed to Google Benchmark as manual times, so its mean is the course's figure. Phases, bytes
// per iteration, CPU and memory are counters.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <memory>
#include <regex>

#include "benchmark_main.h"
#include "catalogue/datasets.h"
#include "catalogue/methods.h"
#include "catalogue/models.h"
#include "common/error.h"
#include "common/rng.h"
#include "record/config.h"
#include "record/record.h"
#include "train/trainer.h"

namespace dtbench::bench {
namespace {

constexpr int64_t kIterations = kTimedLast + 1;  // 0 (warm-up) .. 39

// CIFAR-shaped random bytes, for machines without the data set (--synthetic, recorded).
TrainData synthetic_cifar(int64_t samples) {
  TrainData d;
  d.spec = &find_dataset("cifar10");
  for (Dataset* ds : {&d.train, &d.test}) {
    ds->name = "synthetic-cifar10";
    ds->images = torch::empty({samples, 3, 32, 32}, torch::kUInt8);
    ds->labels = torch::empty({samples}, torch::kInt64);
    uint8_t* pixels = ds->images.data_ptr<uint8_t>();
    for (int64_t i = 0; i < ds->images.numel(); ++i) pixels[i] = static_cast<uint8_t>(mix64(i));
    int64_t* labels = ds->labels.data_ptr<int64_t>();
    for (int64_t i = 0; i < samples; ++i) labels[i] = static_cast<int64_t>(mix64(i) % 10);
  }
  return d;
}

// Each data set is read once per process and shared by the benchmarks that use it.
const TrainData& data_for(const std::string& dataset, const Options& options) {
  static std::map<std::string, TrainData> cache;
  auto found = cache.find(dataset);
  if (found != cache.end()) return found->second;
  TrainConfig c;
  c.dataset = dataset;
  c.data_dir = options.data_dir;
  TrainData data;
  try {
    data = options.synthetic && dataset == "cifar10" ? synthetic_cifar(256 * kIterations)
                                                     : load_train_data(c);
  } catch (const UserError& e) {
    throw UserError(
        fmt::format("{} (point --data-dir or DATA_DIR at the data sets, or pass "
                    "--synthetic for random CIFAR-shaped data)",
                    e.what()));
  }
  return cache.emplace(dataset, std::move(data)).first->second;
}

void train_benchmark(benchmark::State& state, const std::string& name, TrainConfig config, World& w,
                     const Options& options) {
  config.max_iters = kIterations;
  config.eval = false;
  config.threads = options.threads;
  config.fault = options.faults.spec();
  config.log_interval = kIterations + 1;
  if (!options.trace_dir.empty()) {
    // One file per benchmark, named after it: "vgg11/allreduce/blocking/..." -> "vgg11-..."
    config.trace = fmt::format("{}/{}.json", options.trace_dir,
                               std::regex_replace(name, std::regex("[^A-Za-z0-9_.=-]+"), "-"));
  }
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> quiet(std::fopen("/dev/null", "w"),
                                                              &std::fclose);
  RunRecord r;
  try {
    Trainer trainer(config, data_for(config.dataset, options), *w.comm, quiet.get());
    r = trainer.run();
  } catch (const TrainingDiverged& e) {
    // Every rank stops at the same step (a diverged loss is the same on each); the benchmarks
    // after this one still run, and the run ends failed.
    state.SkipWithError(e.what());
    return;
  }
  const auto& times = r.iterations.total_s;
  size_t k = kTimedFirst;
  for (auto _ : state) state.SetIterationTime(times.at(k++));

  nlohmann::json summary = to_json(r)["summary"];
  for (size_t p = 0; p < kPhaseCount; ++p) {
    state.counters[std::string(kPhaseNames[p]) + "_s"] = summary["phase_mean_s"][kPhaseNames[p]];
  }
  const double mean = summary["iteration_s"]["mean"];
  state.counters["sync_share"] = summary["phase_mean_s"]["sync"].get<double>() / mean;
  double payload_sent = 0, payload_received = 0, nic_sent = 0, nic_received = 0, cpu = 0, rss = 0;
  for (const auto& rank : r.ranks) {
    payload_sent += static_cast<double>(rank.payload_sent_bytes);
    payload_received += static_cast<double>(rank.payload_received_bytes);
    for (const auto& [name, bytes] : rank.nic.items()) {
      nic_sent += bytes["sent_bytes"].get<double>();
      nic_received += bytes["received_bytes"].get<double>();
    }
    cpu += rank.usage.cpu_utilisation;
    rss = std::max(rss, static_cast<double>(rank.usage.peak_rss_bytes));
  }
  const double per_rank_iteration = static_cast<double>(r.ranks.size() * times.size());
  state.counters["payload_sent_bytes"] = payload_sent / per_rank_iteration;
  state.counters["payload_received_bytes"] = payload_received / per_rank_iteration;
  state.counters["nic_sent_bytes"] = nic_sent / per_rank_iteration;
  state.counters["nic_received_bytes"] = nic_received / per_rank_iteration;
  state.counters["cpu_utilisation"] = cpu / static_cast<double>(r.ranks.size());
  state.counters["peak_rss_bytes"] = rss;
  state.counters["final_loss"] = r.iterations.loss.back();
  state.counters["ranks"] = static_cast<double>(r.ranks.size());
  state.counters["threads"] = r.threads;
  state.counters["buckets"] = static_cast<double>(r.bucket_bytes.size());
  if (!r.bucket_bytes.empty()) {
    std::vector<double> mib;
    for (int64_t bytes : r.bucket_bytes) mib.push_back(static_cast<double>(bytes) / 1048576.0);
    state.SetLabel(fmt::format("bucket MiB: {:.2f}", fmt::join(mib, " ")));
  }
}

// The matrix: every strategy in every mode it has, at the model's batch; bucketed over bucket
// sizes; sum aggregation for allreduce.
std::vector<TrainConfig> configurations(const std::string& backend) {
  std::vector<TrainConfig> all;
  for (const auto& model : model_registry()) {
    TrainConfig base;
    base.model = model.name;
    apply_model_defaults(base);
    for (const auto& spec : sync_methods()) {
      if (!spec.only_backend.empty() && spec.only_backend != backend) continue;
      for (SyncMode mode : spec.modes) {
        TrainConfig c = base;
        c.sync = spec.name;
        c.sync_options.mode = mode;
        all.push_back(c);
      }
    }
    for (double mb : {1.0, 5.0, 10.0, 50.0}) {
      TrainConfig c = base;
      c.sync = "bucketed";
      c.sync_options.mode = SyncMode::overlap;
      c.sync_options.bucket_mb = mb;
      all.push_back(c);
    }
    TrainConfig sum = base;
    sum.sync = "allreduce";
    sum.sync_options.mode = SyncMode::blocking;
    sum.sync_options.aggregate = Aggregate::sum;
    all.push_back(sum);
  }
  return all;
}

// Google Benchmark selects with a regex search, a leading '-' negating it.
bool selected(const std::string& name, const std::string& filter) {
  if (filter.empty() || filter == "all" || filter == ".") return true;
  bool negative = filter[0] == '-';
  bool found = std::regex_search(name, std::regex(negative ? filter.substr(1) : filter));
  return found != negative;
}

// Reads every data set the selected benchmarks use now, so that a missing one is a one-line
// error before anything runs (rather than mid-way through the benchmark output).
void register_all(World& w, const Options& options, const std::string& filter) {
  for (const TrainConfig& c : configurations(w.comm->backend())) {
    auto name = fmt::format(
        "{}/sync:{}/mode:{}/batch:{}/bucket_mb:{}/aggregate:{}/backend:{}/ranks:{}", c.model,
        c.sync, to_string(c.sync_options.mode), c.global_batch, c.sync_options.bucket_mb,
        to_string(c.sync_options.aggregate), w.comm->backend(), w.comm->size());
    if (!selected(name, filter)) continue;
    data_for(c.dataset, options);
    benchmark::RegisterBenchmark(
        name.c_str(),
        [name, c, &w, &options](benchmark::State& s) { train_benchmark(s, name, c, w, options); })
        ->Iterations(kTimedLast - kTimedFirst + 1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace
}  // namespace dtbench::bench

int main(int argc, char** argv) {
  return dtbench::bench::benchmark_main(
      argc, argv, "bench_train",
      [](dtbench::bench::World& world, dtbench::bench::Options& options,
         const std::string& filter) {
        if (options.data_dir.empty()) options.data_dir = dtbench::default_data_dir();
        benchmark::AddCustomContext("dtbench_data",
                                    options.synthetic ? "synthetic" : options.data_dir);
        dtbench::bench::register_all(world, options, filter);
      });
}
