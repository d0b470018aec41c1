// dtbench-train: one training run on one or many ranks, ending in one result record.
#include <fmt/core.h>

#include <cstdio>

#include "comm/launch.h"
#include "comm/mpi_communicator.h"
#include "common/allocator.h"
#include "common/main_guard.h"
#include "record/cli.h"
#include "record/record.h"
#include "record/start_facts.h"
#include "stats/rank_stats.h"
#include "train/trainer.h"

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress reaches a log file line by line
  int code = dtbench::guarded_main("dtbench-train", [&] {
    auto config = dtbench::parse_train_cli(argc, argv);
    if (!config) return 0;
    if (config->malloc_setting == "keep")
      dtbench::keep_freed_memory();  // before any large allocation
    dtbench::TrainData data = dtbench::load_train_data(*config);
    auto comm = dtbench::connect(
        {config->backend, config->master, config->world_size, config->rank, config->timeout_s});
    dtbench::Trainer trainer(*config, std::move(data), *comm);
    dtbench::RunRecord record = trainer.run();
    if (comm->rank() == 0) {
      dtbench::write_record(config->out, record);
      dtbench::print_rank_table(record);
      for (const auto& line : {dtbench::link_finding_text(dtbench::link_finding(record)),
                               dtbench::clock_alignment_text(record)}) {
        if (!line.empty()) fmt::print("{}\n", line);
      }
      fmt::print("Result record: {}\n", config->out);
    }
    return 0;
  });
  // Only a clean run finalises MPI: after an error mpirun must see this rank fail and stop
  // the others, rather than MPI_Finalize waiting on a peer that is gone.
  if (code == 0) dtbench::finalize_mpi();
  return code;
}
