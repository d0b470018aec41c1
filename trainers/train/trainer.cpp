#include "train/trainer.h"

#include <fmt/core.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>
#include <unistd.h>

#include "common/error.h"
#include "data/preprocess.h"
#include "data/sampler.h"
#include "models/models.h"
#include "train/phase_timer.h"
#include "train/resource_usage.h"
#include "train/stats.h"
#include "train/system_info.h"

namespace dtbench {

namespace F = torch::nn::functional;

TrainData load_train_data(const TrainConfig& config) {
  TrainData data;
  data.spec = &find_dataset(config.dataset);
  data.train = data.spec->load(config.data_dir, Split::train);
  data.test = data.spec->load(config.data_dir, Split::test);
  return data;
}

Trainer::Trainer(TrainConfig config, TrainData data, std::FILE* log)
    : config_(std::move(config)), data_(std::move(data)), log_(log) {
  const ModelSpec& spec = find_model(config_.model);
  require(spec.in_channels == data_.spec->channels,
          fmt::format("model {} takes {}-channel images but dataset {} has {} channels", spec.name,
                      spec.in_channels, data_.spec->name, data_.spec->channels));
  require(config_.global_batch % config_.world_size == 0,
          fmt::format("global batch {} does not divide by the {} ranks", config_.global_batch,
                      config_.world_size));
  if (config_.threads > 0) torch::set_num_threads(config_.threads);
  // Same seed everywhere: identical initial parameters on every rank and on every rerun.
  torch::manual_seed(config_.seed);
  model_ = spec.make();
}

RunRecord Trainer::run() {
  ResourceMeter meter;
  RunRecord record;
  record.config = config_;
  record.threads = torch::get_num_threads();
  std::vector<std::string> files = data_.train.files;
  files.insert(files.end(), data_.test.files.begin(), data_.test.files.end());
  record.system = describe_system(files);

  torch::optim::SGD optimizer(model_->parameters(), torch::optim::SGDOptions(config_.lr)
                                                        .momentum(config_.momentum)
                                                        .weight_decay(config_.weight_decay));
  ShardSampler sampler(data_.train.size(), config_.world_size, config_.rank, config_.seed,
                       /*shuffle=*/true);
  const int64_t batch = config_.global_batch / config_.world_size;
  const int64_t steps = sampler.num_batches(batch);
  PhaseTimer timer;

  for (int64_t epoch = 1; epoch <= config_.epochs && !reached_max_iters(record); ++epoch) {
    sampler.set_epoch(static_cast<uint64_t>(epoch - 1));
    model_->train();
    for (int64_t step = 1; step <= steps && !reached_max_iters(record); ++step) {
      timer.start();
      Batch b = make_batch(data_.train, sampler.batch(step - 1, batch), data_.spec->preprocess,
                           /*train=*/true, config_.seed, static_cast<uint64_t>(epoch - 1));
      timer.lap(Phase::data);
      optimizer.zero_grad();
      torch::Tensor loss = F::cross_entropy(model_->forward(b.images), b.labels);
      timer.lap(Phase::forward);
      loss.backward();
      timer.lap(Phase::backward);
      timer.lap(Phase::sync);  // single process: nothing to synchronise
      optimizer.step();
      timer.lap(Phase::optimizer);
      record.iterations.add(epoch, step, loss.item<double>(), timer.finish());

      if (step % config_.log_interval == 0 || step == steps) {
        fmt::print(log_, "Epoch {} [{}/{}] loss {:.4f}\n", epoch, step, steps,
                   record.iterations.loss.back());
      }
      if (static_cast<int64_t>(record.iterations.size()) == kTimedLast + 1) {
        print_average(record.iterations);
      }
    }
    if (config_.eval) {
      record.evaluations.push_back(evaluate(epoch, static_cast<int64_t>(record.iterations.size())));
    }
  }
  if (record.iterations.size() <= static_cast<size_t>(kTimedLast)) print_average(record.iterations);
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  record.ranks.push_back({config_.rank, host, meter.read()});
  return record;
}

bool Trainer::reached_max_iters(const RunRecord& record) const {
  return config_.max_iters > 0 &&
         static_cast<int64_t>(record.iterations.size()) >= config_.max_iters;
}

void Trainer::print_average(const IterationLog& log) const {
  auto timed = window(log.total_s, kTimedFirst, kTimedLast);
  if (timed.empty()) {
    fmt::print(log_, "Average time per iteration: not measured (fewer than 2 iterations)\n");
    return;
  }
  fmt::print(log_, "Average time per iteration (iterations {}-{}): {:.4f} s\n", kTimedFirst,
             kTimedFirst + static_cast<int64_t>(timed.size()) - 1, summarize(timed).mean);
}

Evaluation Trainer::evaluate(int64_t epoch, int64_t iterations_done) {
  torch::NoGradGuard no_grad;
  model_->eval();
  const Dataset& test = data_.test;
  int64_t total = config_.eval_limit > 0 ? std::min(config_.eval_limit, test.size()) : test.size();
  double loss_sum = 0;
  int64_t correct = 0;
  for (int64_t first = 0; first < total; first += config_.eval_batch) {
    std::vector<int64_t> indices;
    for (int64_t i = first; i < std::min(first + config_.eval_batch, total); ++i) {
      indices.push_back(i);
    }
    Batch b = make_batch(test, indices, data_.spec->preprocess, /*train=*/false, config_.seed, 0);
    auto logits = model_->forward(b.images);
    loss_sum +=
        F::cross_entropy(logits, b.labels, F::CrossEntropyFuncOptions().reduction(torch::kSum))
            .item<double>();
    correct += logits.argmax(1).eq(b.labels).sum().item<int64_t>();
  }
  model_->train();
  Evaluation e{epoch,   iterations_done, loss_sum / static_cast<double>(total),
               correct, total,           static_cast<double>(correct) / static_cast<double>(total)};
  fmt::print(log_, "Test set: average loss {:.4f}, accuracy {}/{} ({:.2f}%)\n", e.loss, e.correct,
             e.total, 100.0 * e.accuracy);
  return e;
}

}  // namespace dtbench
