// dtbench-train: one training run (today single-process), ending in one result record.
#include <fmt/core.h>

#include <cstdio>

#include "common/main_guard.h"
#include "train/cli.h"
#include "train/record.h"
#include "train/trainer.h"

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress reaches a log file line by line
  return dtbench::guarded_main("dtbench-train", [&] {
    auto config = dtbench::parse_train_cli(argc, argv);
    if (!config) return 0;
    dtbench::Trainer trainer(*config, dtbench::load_train_data(*config));
    dtbench::RunRecord record = trainer.run();
    dtbench::write_record(config->out, record);
    fmt::print("Result record: {}\n", config->out);
    return 0;
  });
}
