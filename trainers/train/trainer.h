#pragma once
#include <cstdio>

#include "data/dataset.h"
#include "data/datasets.h"
#include "models/classifier.h"
#include "train/config.h"
#include "train/record.h"

namespace dtbench {

// The train and test sets of a run, with the preprocessing that belongs to them.
struct TrainData {
  const DatasetSpec* spec = nullptr;
  Dataset train;
  Dataset test;
};

// Loads config.dataset from config.data_dir; UserError naming the file if anything is wrong.
TrainData load_train_data(const TrainConfig& config);

// The training loop: per iteration data -> forward -> backward -> sync -> optimizer, each
// phase timed by one PhaseTimer; loss every log_interval iterations and the average time of
// iterations 1..39 printed to `log`; evaluation on the test set after every epoch.
class Trainer {
 public:
  Trainer(TrainConfig config, TrainData data, std::FILE* log = stdout);

  RunRecord run();
  Classifier model() const { return model_; }

 private:
  void train_epoch(int64_t epoch, RunRecord& record);
  Evaluation evaluate(int64_t epoch, int64_t iterations_done);
  bool reached_max_iters(const RunRecord& record) const;
  void print_average(const IterationLog& log) const;

  TrainConfig config_;
  TrainData data_;
  std::FILE* log_;
  Classifier model_;
};

}  // namespace dtbench
