#include "record/cli.h"

#include <fmt/chrono.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <ctime>

#include "catalogue/backends.h"
#include "catalogue/datasets.h"
#include "catalogue/methods.h"
#include "catalogue/models.h"
#include "common/cli_numbers.h"
#include "common/error.h"
#include "common/fault_plan.h"
#include "common/files.h"
#include "common/registry.h"

namespace dtbench {
namespace {

struct ModelDefaults {
  std::optional<std::string> dataset, sync, mode;
  std::string aggregate = to_string(SyncOptions{}.aggregate);
  std::optional<int64_t> global_batch;
  std::optional<double> lr, momentum, weight_decay;
};

std::string default_out(const TrainConfig& c) {
  return fmt::format("results/dtbench-train/{}-{}-{:%Y%m%dT%H%M%S}.json", c.model, c.dataset,
                     fmt::gmtime(std::time(nullptr)));
}

// The methods of the catalogue (catalogue/methods.h), in its order, joined by sep: the help never
// lists them by hand.
std::string strategy_names(const char* sep) {
  std::vector<std::string> names;
  for (const auto& spec : sync_methods()) names.push_back(spec.name);
  return fmt::format("{}", fmt::join(names, sep));
}

// "bucketed overlap, c10d_ddp overlap": the strategies whose default mode is not blocking.
std::string non_blocking_defaults() {
  std::vector<std::string> parts;
  for (const auto& spec : sync_methods()) {
    if (spec.name != "none" && spec.modes.front() != SyncMode::blocking)
      parts.push_back(spec.name + " " + to_string(spec.modes.front()));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

CLI::Validator range_check(OptionRange range) {
  switch (range) {
    case OptionRange::positive:
      return positive();
    case OptionRange::non_negative:
      return non_negative();
    case OptionRange::from_two:
      return number_at_least(2, true, ">= 2");
    case OptionRange::fraction:
      return fraction();
  }
  return positive();
}

void add_distributed_options(CLI::App& app, TrainConfig& c, ModelDefaults& d) {
  app.add_option("--sync", d.sync,
                 fmt::format("Gradient synchronisation: {} (default: allreduce with several "
                             "ranks, none alone)",
                             strategy_names(" | ")));
  app.add_option("--backend", c.backend,
                 "Communication: auto (mpi under mpirun or srun --mpi=pmix) | mpi | gloo | self")
      ->capture_default_str();
  app.add_option("--aggregate", d.aggregate, "mean | sum (sum: the step grows n-fold)")
      ->capture_default_str();
  app.add_option("--mode", d.mode,
                 fmt::format("blocking | overlap | stale (default: the strategy's: {}, others "
                             "blocking)",
                             non_blocking_defaults()));
  each_sync_option(c.sync_options, [&app](const OptionSpec& spec, auto& value) {
    std::string flag = "--" + std::string(spec.key);
    std::replace(flag.begin(), flag.end(), '_', '-');
    app.add_option(flag, value, spec.help)->capture_default_str()->check(range_check(spec.range));
  });
  app.add_option("--trace", c.trace,
                 "Write a Chrome trace (Perfetto, chrome://tracing) of iterations 1..39 here");
  app.add_option("--master", c.master, "gloo without mpirun: rendezvous HOST:PORT of rank 0");
  app.add_option("--world-size", c.world_size, "gloo without mpirun: number of ranks")
      ->check(positive());
  app.add_option("--rank", c.rank, "gloo without mpirun: this process's rank")
      ->check(non_negative());
  app.add_option("--timeout-s", c.timeout_s,
                 "Give up (exit 3) when a peer is silent this long (0: never)")
      ->capture_default_str()
      ->check(non_negative());
  app.add_option("--slow-rank", c.slow_rank, "Straggler: this rank does --slow-ms of extra work")
      ->capture_default_str();
  app.add_option("--slow-ms", c.slow_ms, "Straggler: busy milliseconds per iteration")
      ->capture_default_str()
      ->check(non_negative());
  app.add_option("--fault", c.fault, "Test only: kill:R | hang:R | corrupt:R (common/fault_plan.h)")
      ->group("");
}

void add_options(CLI::App& app, TrainConfig& c, ModelDefaults& d) {
  app.add_option("--model", c.model, "Model: vgg11 | lenet5")->capture_default_str();
  app.add_option("--dataset", d.dataset, "Dataset: cifar10 | mnist (default: the model's)");
  app.add_option("--data-dir", c.data_dir,
                 "Folder holding cifar-10-batches-bin/ and mnist/ (default: $DATA_DIR or data)")
      ->capture_default_str();
  app.add_option("--epochs", c.epochs, "Epochs")->capture_default_str()->check(positive());
  app.add_option("--max-iters", c.max_iters, "Stop after this many iterations (0: no limit)")
      ->capture_default_str()
      ->check(non_negative());
  app.add_option("--global-batch", d.global_batch,
                 "Global batch, split over the ranks (default: the model's: vgg11 256, lenet5 64)")
      ->check(positive());
  app.add_option("--lr", d.lr, "Learning rate (default: the model's: vgg11 0.1, lenet5 0.01)")
      ->check(non_negative());
  app.add_option("--momentum", d.momentum, "SGD momentum (default: the model's, 0.9)")
      ->check(non_negative());
  app.add_option("--weight-decay", d.weight_decay,
                 "Weight decay (default: the model's: vgg11 1e-4, lenet5 0)")
      ->check(non_negative());
  app.add_option("--threads", c.threads,
                 "Intra-op threads (0: its cpuset's cores over the ranks that share them)")
      ->capture_default_str()
      ->check(non_negative());
  app.add_option("--seed", c.seed, "Seed for initialisation, shuffling and augmentation")
      ->capture_default_str();
  app.add_option("--log-interval", c.log_interval, "Print the loss every N iterations")
      ->capture_default_str()
      ->check(positive());
  app.add_flag("--eval,!--no-eval", c.eval,
               "Evaluate on the test set after each epoch (--no-eval: skip it)");
  app.add_option("--train-limit", c.train_limit,
                 "Train on the first N training images (0: all); an epoch is a pass over them")
      ->capture_default_str()
      ->check(non_negative());
  app.add_option("--eval-limit", c.eval_limit, "Evaluate on the first N test images (0: all)")
      ->capture_default_str()
      ->check(non_negative());
  app.add_option("--eval-batch", c.eval_batch, "Batch size for evaluation")
      ->capture_default_str()
      ->check(positive());
  app.add_option("--malloc", c.malloc_setting,
                 "keep: freed memory stays in the process for the next iteration; glibc: "
                 "glibc's defaults (for comparison; the environment's malloc settings win)")
      ->capture_default_str()
      ->check(CLI::IsMember({"keep", "glibc"}));
  add_distributed_options(app, c, d);
  app.add_option(
      "--out", c.out,
      "Result record path (default: results/dtbench-train/<model>-<dataset>-<time>.json)");
}

void resolve(TrainConfig& c, const ModelDefaults& d) {
  apply_model_defaults(c);
  c.dataset = d.dataset.value_or(c.dataset);
  find_dataset(c.dataset);
  c.global_batch = d.global_batch.value_or(c.global_batch);
  c.lr = d.lr.value_or(c.lr);
  c.momentum = d.momentum.value_or(c.momentum);
  c.weight_decay = d.weight_decay.value_or(c.weight_decay);
  c.sync = d.sync.value_or("");
  c.sync_options.mode = d.mode ? parse_mode(*d.mode) : default_mode_of(c.sync);
  if (!c.sync.empty()) check_sync(c);
  c.sync_options.aggregate = parse_aggregate(d.aggregate);
  FaultPlan::parse(c.fault);
  if (c.backend != "auto") find_by_name(backend_registry(), c.backend, "backend");
  require(c.master.empty() || (c.world_size > 0 && c.rank >= 0),
          "--master needs --world-size and --rank (one command per node)");
  require(c.rank < 0 || c.rank < c.world_size,
          fmt::format("--rank {} is not within --world-size {}", c.rank, c.world_size));
  if (c.out.empty()) c.out = default_out(c);
  require_writable(c.out);  // at the start, not once the run is over
  if (!c.trace.empty()) require_writable(c.trace);
}

}  // namespace

std::vector<std::string> train_option_keys() {
  CLI::App app;
  TrainConfig config;
  ModelDefaults defaults;
  add_options(app, config, defaults);
  std::vector<std::string> keys;
  for (const CLI::Option* option : app.get_options()) {
    // Hidden options (the empty group) are test only.
    if (option == app.get_help_ptr() || option->get_group().empty()) continue;
    std::string key = option->get_lnames().front();
    std::replace(key.begin(), key.end(), '-', '_');
    keys.push_back(key);
  }
  return keys;
}

std::optional<TrainConfig> parse_train_cli(int argc, const char* const* argv) {
  CLI::App app("dtbench-train: train a model with data-parallel gradient synchronisation",
               "dtbench-train");
  app.get_formatter()->column_width(34);
  TrainConfig config;
  config.data_dir = default_data_dir();
  config.rank = -1;  // "not given": only --master launches take them from the command line
  config.world_size = 0;
  ModelDefaults defaults;
  add_options(app, config, defaults);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw ArgumentError(e.what());
  }
  as_argument_check([&] { resolve(config, defaults); });
  return config;
}

}  // namespace dtbench
