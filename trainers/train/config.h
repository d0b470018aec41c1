#pragma once
#include <cstdint>
#include <string>

#include "sync/methods.h"

namespace dtbench {

// Everything that defines a training run, fully resolved (no "use the default" markers):
// the CLI fills the model's defaults in before a Trainer sees it.
struct TrainConfig {
  std::string model = "vgg11";
  std::string dataset = "cifar10";
  std::string data_dir = "data";
  int epochs = 1;
  int64_t train_limit = 0;  // 0: the whole training set; otherwise its first N images
  int64_t max_iters = 0;    // 0: no limit; otherwise training stops after this many iterations
  int64_t global_batch = 256;
  double lr = 0.1;
  double momentum = 0.9;
  double weight_decay = 1e-4;
  int threads = 0;  // 0: default_threads()
  uint64_t seed = 1;
  int64_t log_interval = 20;
  bool eval = true;
  int64_t eval_limit = 0;  // 0: the whole test set
  int64_t eval_batch = 1000;
  std::string out;     // result record path
  std::string trace;   // Chrome trace of the timed iterations, written by rank 0; "": none
  int world_size = 1;  // given for gloo without mpirun; afterwards what the communicator says
  int rank = 0;
  std::string master;  // gloo without mpirun: rank 0's HOST:PORT
  std::string sync;    // "": allreduce with several ranks, none alone
  std::string backend = "auto";
  std::string aggregate = "mean";  // mean | sum
  std::string mode;                // blocking | overlap | stale; "": the strategy's first
  double bucket_mb = SyncOptions{}.bucket_mb;
  int powersgd_rank = SyncOptions{}.powersgd_rank;
  int64_t powersgd_start = SyncOptions{}.powersgd_start;
  double topk_fraction = SyncOptions{}.topk_fraction;
  int64_t local_sgd_period = SyncOptions{}.local_sgd_period;
  int ranks_per_host = SyncOptions{}.ranks_per_host;
  int timeout_s = 300;
  std::string malloc_setting = "keep";  // keep | glibc: keep_freed_memory() or glibc's defaults
  int slow_rank = -1;                   // this rank does slow_ms of extra busy work per iteration
  double slow_ms = 0;
  std::string fault;  // test only: a FaultPlan spec (common/fault_plan.h); "": none
};

// The model's own settings (models/models.h): its dataset, global batch, learning rate,
// momentum and weight decay, for c.model. UserError for an unknown model.
void apply_model_defaults(TrainConfig& c);

// The strategy's options as the config gives them, checked: UserError for an unknown mode or
// aggregate, a mode the method does not have, or a cap that is not positive. The one place a
// TrainConfig's sync fields are read (the CLI checks with it, the trainer builds with it).
SyncOptions sync_options_of(const TrainConfig& c);

}  // namespace dtbench
