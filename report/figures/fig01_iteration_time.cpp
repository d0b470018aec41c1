// Figure 1, "Iteration time per synchronisation method": its table, caption and sentences,
// drawn by fig01_iteration_time.gp.
#include <fmt/format.h>

#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData iteration_time(const SystemResults& s, const std::vector<SystemResults>&) {
  return iteration_times_of(s, "sync_methods");
}

}  // namespace dtbench::report
