#include "train/cli.h"

#include <fmt/chrono.h>
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <ctime>

#include "common/error.h"
#include "data/datasets.h"
#include "models/models.h"

namespace dtbench {
namespace {

struct ModelDefaults {
  std::optional<std::string> dataset;
  std::optional<int64_t> global_batch;
  std::optional<double> lr, momentum, weight_decay;
};

std::string default_data_dir() {
  const char* env = std::getenv("DATA_DIR");
  return env != nullptr && *env != '\0' ? env : "data";
}

std::string default_out(const TrainConfig& c) {
  return fmt::format("results/dtbench-train/{}-{}-{:%Y%m%dT%H%M%S}.json", c.model, c.dataset,
                     fmt::gmtime(std::time(nullptr)));
}

void add_options(CLI::App& app, TrainConfig& c, ModelDefaults& d) {
  app.add_option("--model", c.model, "Model: vgg11 | lenet5")->capture_default_str();
  app.add_option("--dataset", d.dataset, "Dataset: cifar10 | mnist (default: the model's)");
  app.add_option("--data-dir", c.data_dir,
                 "Folder holding cifar-10-batches-bin/ and mnist/ (default: $DATA_DIR or data)")
      ->capture_default_str();
  app.add_option("--epochs", c.epochs, "Epochs")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-iters", c.max_iters, "Stop after this many iterations (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--global-batch", d.global_batch,
                 "Global batch, split over the ranks (default: the model's: vgg11 256, lenet5 64)")
      ->check(CLI::PositiveNumber);
  app.add_option("--lr", d.lr, "Learning rate (default: the model's: vgg11 0.1, lenet5 0.01)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--momentum", d.momentum, "SGD momentum (default: the model's, 0.9)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--weight-decay", d.weight_decay,
                 "Weight decay (default: the model's: vgg11 1e-4, lenet5 0)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--threads", c.threads, "Intra-op threads (0: libtorch's default)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", c.seed, "Seed for initialisation, shuffling and augmentation")
      ->capture_default_str();
  app.add_option("--log-interval", c.log_interval, "Print the loss every N iterations")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_flag("!--no-eval", c.eval, "Skip the test-set evaluation after each epoch");
  app.add_option("--eval-limit", c.eval_limit, "Evaluate on the first N test images (0: all)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--eval-batch", c.eval_batch, "Batch size for evaluation")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option(
      "--out", c.out,
      "Result record path (default: results/dtbench-train/<model>-<dataset>-<time>.json)");
}

void resolve(TrainConfig& c, const ModelDefaults& d) {
  const ModelSpec& model = find_model(c.model);
  c.dataset = d.dataset.value_or(model.default_dataset);
  find_dataset(c.dataset);
  c.global_batch = d.global_batch.value_or(model.global_batch);
  c.lr = d.lr.value_or(model.lr);
  c.momentum = d.momentum.value_or(model.momentum);
  c.weight_decay = d.weight_decay.value_or(model.weight_decay);
  if (c.out.empty()) c.out = default_out(c);
}

}  // namespace

std::optional<TrainConfig> parse_train_cli(int argc, const char* const* argv) {
  CLI::App app("dtbench-train: train a model with data-parallel gradient synchronisation",
               "dtbench-train");
  app.get_formatter()->column_width(34);
  TrainConfig config;
  config.data_dir = default_data_dir();
  ModelDefaults defaults;
  add_options(app, config, defaults);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw UserError(e.what());
  }
  resolve(config, defaults);
  return config;
}

}  // namespace dtbench
