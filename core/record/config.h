#pragma once
#include <cstdint>
#include <string>

#include "catalogue/methods.h"

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
  int threads = 0;  // 0: the cores shared among the ranks on them (common/thread_share.h)
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
  std::string sync;    // "": default_sync(world size), once the communicator is up
  std::string backend = "auto";
  // The method's options; the mode resolved (default_mode_of(sync) unless --mode was given).
  SyncOptions sync_options;
  int timeout_s = 300;
  std::string malloc_setting = "keep";  // keep | glibc: keep_freed_memory() or glibc's defaults
  int slow_rank = -1;                   // this rank does slow_ms of extra busy work per iteration
  double slow_ms = 0;
  std::string fault;  // test only: a FaultPlan spec (common/fault_plan.h); "": none
};

// The model's own settings (catalogue/models.h): its dataset, global batch, learning rate,
// momentum and weight decay, for c.model. UserError for an unknown model.
void apply_model_defaults(TrainConfig& c);

// UserError for an unknown method, a mode the method does not have, or a cap that is not
// positive. The CLI checks with it once the method is named, the trainer once it is resolved.
void check_sync(const TrainConfig& c);

}  // namespace dtbench
