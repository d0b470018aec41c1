#include "train_checks.h"

#include <cstdio>

#include "sync/grad_sync.h"
#include "train/trainer.h"

namespace dtbench::testing {

TrainConfig tiny_lenet_config(const std::string& data_dir) {
  TrainConfig c;
  c.model = "lenet5";
  c.dataset = "mnist";
  c.data_dir = data_dir;
  c.global_batch = 24;  // divides by 1, 2, 3 and 4 ranks
  c.lr = 0.05;
  c.weight_decay = 0;
  c.threads = 1;
  c.eval = false;
  c.timeout_s = 120;
  return c;
}

std::vector<double> losses_with(Communicator& comm, TrainConfig config, const std::string& sync,
                                const std::string& mode, int iterations) {
  config.sync = sync;
  config.mode = mode;
  config.max_iters = iterations;
  std::FILE* quiet = std::tmpfile();
  RunRecord record = Trainer(config, load_train_data(config), comm, quiet).run();
  std::fclose(quiet);
  return record.iterations.loss;
}

std::vector<std::string> synchronising_strategies() {
  std::vector<std::string> names;
  for (const auto& spec : sync_registry()) {
    if (spec.name != "none") names.push_back(spec.name);
  }
  return names;
}

}  // namespace dtbench::testing
