#pragma once
#include <torch/optim/optimizer.h>

#include <cstdio>
#include <memory>

#include "catalogue/datasets.h"
#include "comm/communicator.h"
#include "common/error.h"
#include "common/fault_plan.h"
#include "common/trace_log.h"
#include "common/watchdog.h"
#include "data/dataset.h"
#include "models/classifier.h"
#include "record/config.h"
#include "record/record.h"
#include "sync/grad_sync.h"
#include "sync/gradient_hooks.h"
#include "train/timeline.h"

namespace dtbench {

// The mean loss over ranks became NaN or infinite: every rank throws it at the same step.
class TrainingDiverged : public RunError {
 public:
  using RunError::RunError;
};

// The train and test sets of a run, with the preprocessing that belongs to them.
struct TrainData {
  const DatasetSpec* spec = nullptr;
  Dataset train;
  Dataset test;
};

// Loads config.dataset from config.data_dir; UserError naming the file if anything is wrong.
TrainData load_train_data(const TrainConfig& config);

// The data-parallel training loop, the same on every rank of comm: per iteration
// data -> forward -> backward -> sync -> optimizer, each phase timed by one PhaseTimer, the
// gradient synchronised by config.sync. Rank 0 prints the loss every log_interval iterations,
// the average time of iterations 1..39 and the test accuracy to `log`; other ranks print
// nothing. Constructing it is collective (it broadcasts rank 0's parameters).
class Trainer {
 public:
  Trainer(TrainConfig config, TrainData data, Communicator& comm, std::FILE* log = stdout);
  ~Trainer();

  // Collective. Every rank returns the same record (per-rank figures gathered from all).
  RunRecord run();
  Classifier model() const { return model_; }

 private:
  IterationTimes train_step(int64_t epoch, int64_t iteration, const std::vector<int64_t>& indices,
                            torch::optim::Optimizer& optimizer, double* loss);
  // Turns this rank's times into the world's (phase means, slowest total); returns the global
  // loss.
  double reduce_across_ranks(IterationTimes& t, double loss);
  void broadcast_from_rank0(bool parameters, bool buffers);
  // Hands the strategy the first iteration's Timeline (outside the timed region).
  void plan_from_first_iteration();
  void check_replicas(int64_t epoch);
  Evaluation evaluate(int64_t epoch, int64_t iterations_done);
  bool reached_max_iters(const RunRecord& record) const;
  void inject_faults(int64_t iteration);  // the test-only --fault kill:R / hang:R
  void print_average(const IterationLog& log) const;
  // Gathers every rank's trace; rank 0 writes config_.trace (docs/traces.md). Collective.
  void write_trace();
  template <typename... Args>
  void say(const char* format, const Args&... args) const;

  TrainConfig config_;
  FaultPlan faults_;
  TrainData data_;
  Communicator& comm_;                     // gradient synchronisation (its bytes are counted)
  std::unique_ptr<Communicator> control_;  // the trainer's own small collectives
  std::FILE* log_;
  Classifier model_;
  std::unique_ptr<GradSync> sync_;
  std::unique_ptr<Watchdog> watchdog_;
  Timeline timeline_;                     // for a strategy that plans from time
  std::unique_ptr<GradientClock> clock_;  // set until the first iteration has run
  std::shared_ptr<TraceLog> trace_;       // --trace: this rank's timed iterations
  std::vector<ClockOffset> clocks_;       // every rank's clock against rank 0's
  ThreadShare threads_;                   // this rank's intra-op threads, and why that many
  GradientHooks trace_hooks_;             // each gradient's arrival, into trace_
};

}  // namespace dtbench
