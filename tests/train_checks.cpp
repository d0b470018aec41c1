#include "train_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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
  config.sync_options.mode = mode.empty() ? default_mode_of(sync) : parse_mode(mode);
  config.max_iters = iterations;
  std::FILE* quiet = std::tmpfile();
  RunRecord record = Trainer(config, load_train_data(config), comm, quiet).run();
  std::fclose(quiet);
  return record.iterations.loss;
}

std::vector<std::string> synchronising_strategies() {
  std::vector<std::string> names;
  for (const auto& spec : sync_methods()) {
    if (spec.name != "none" && !spec.lossy) names.push_back(spec.name);
  }
  return names;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = a.size() == b.size() ? 0 : 1e9;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return worst;
}

std::vector<std::string> lossy_training_problems(Communicator& comm, const std::string& data_dir) {
  std::vector<std::string> problems;
  const TrainConfig base = tiny_lenet_config(data_dir);
  const auto reference = losses_with(comm, base, "allreduce", "", 6);
  TrainConfig every_step = base;
  every_step.sync_options.local_sgd_period = 1;
  every_step.sync_options.topk_fraction = 1;
  for (const char* name : {"local_sgd", "topk"}) {
    const double worst = max_difference(losses_with(comm, every_step, name, "", 6), reference);
    if (worst > 1e-4) {
      problems.push_back(fmt::format("{}: losses differ from allreduce's by {}", name, worst));
    }
  }
  TrainConfig period = base;
  period.sync = "local_sgd";
  period.sync_options.local_sgd_period = 4;
  period.epochs = 1;
  std::FILE* quiet = std::tmpfile();
  try {
    RunRecord record = Trainer(period, load_train_data(period), comm, quiet).run();
    if (record.iterations.size() % 4 == 0) {
      problems.push_back(fmt::format("local_sgd: the epoch's {} steps divide by 4: no test",
                                     record.iterations.size()));
    }
  } catch (const std::exception& e) {
    problems.push_back(fmt::format("local_sgd every 4 steps: {}", e.what()));
  }
  std::fclose(quiet);
  return problems;
}

}  // namespace dtbench::testing
