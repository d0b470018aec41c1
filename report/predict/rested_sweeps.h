#pragma once
// What a rest before each operation changes in a sweep (bench_collectives --rest-ms): per
// backend and ranks, each collective swept after the rest at the models' own sizes, against the
// same operation between barriers and chained, as the model reads the sweeps (it prices none by
// the rested time: inside training, a step's first large call finds the rested links only some
// of the time, docs/model.md).
#include <cstdint>
#include <string>
#include <vector>

#include "report/read/results.h"

namespace dtbench {

struct RestedSize {
  std::string op;
  int64_t bytes = 0;
  std::string model_case;                              // "lenet5", "vgg11"
  double rested_s = 0, between_s = 0, chained_s = -1;  // means over repetitions; -1: none
};
struct RestedSweeps {
  std::string backend;
  int ranks = 0;
  double rest_s = 0;
  std::vector<RestedSize> sizes;  // each op's largest model size swept both ways, by op
};
std::vector<RestedSweeps> rested_sweeps(const SystemResults& s);

// "after 3 ms of rest, mpi on 2 ranks at LeNet-5's 192000 B: allreduce 14.65 ms (21.41 between
// barriers, 26.95 chained), ..."
std::string rested_sweeps_text(const RestedSweeps& r);

}  // namespace dtbench
