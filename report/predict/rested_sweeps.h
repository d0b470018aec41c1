#pragma once
// What a rest before each operation changes in a sweep (bench_collectives --rest-ms): per
// backend and ranks, each collective swept after the rest at the models' own sizes, against the
// same operation between barriers and chained, as the model reads the sweeps (MPI's and Gloo's
// beyond the links' token bucket it prices by their times between barriers or chained: inside
// training, a step's first large call finds the rested links only some of the time; up to the
// bucket, Gloo's where each rank has a core of its own and Open MPI's own collectives after the
// rest: docs/model.md).
#include <cstdint>
#include <string>
#include <vector>

#include "model/cost_model.h"
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

// What a rest before each operation saved on `backend`'s allreduce on these ranks, by size: the
// rested sweep's operations chained less the same after the rest (a rested sweep times both),
// the means over its repetitions, at least 0, held at the largest swept size beyond it. On the
// EPYC VM's emulated cluster at 100 Mbit/s (extrapolation-netns-8-100mbit-epyc-vm-frag8k), Gloo's
// allreduce on 2 ranks of 65,536 B took 5.60 ms chained and 3.67 after 3 ms of rest, of 262,144 B
// 22.88 and 23.11: nothing saved, where the links' token bucket of 31 KB would save 2.7 ms.
struct RestSaving {
  model::MeasuredCost saving;
  double rest_s = 0;
  bool found() const { return !saving.bytes.empty(); }
  double saved_s(double bytes) const;
};
RestSaving rest_saving(const SystemResults& s, const std::string& backend, int ranks);

// Which sweeps price the operations, by backend and rank count (sweep_of, priced_after_rest):
// "Gloo's operations on 2 ranks (a core each) as swept after a rest up to the links' token bucket
// of 31 KB (chained beyond); on 4, 8 ranks chained", "Open MPI's own collectives (allreduce) on 2,
// 4, 8 ranks as swept after a rest up to ...". None where no rank count is priced after a rest.
std::vector<std::string> rest_pricing_text(const SystemResults& s);

}  // namespace dtbench
