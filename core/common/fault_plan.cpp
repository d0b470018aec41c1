#include "common/fault_plan.h"

#include <fmt/format.h>

#include <regex>

#include "common/error.h"

namespace dtbench {

FaultPlan FaultPlan::parse(const std::string& spec) {
  FaultPlan plan;
  if (spec.empty()) return plan;
  std::smatch m;
  if (spec == "wrong") {
    plan.fault_ = Fault::wrong;
  } else if (std::regex_match(spec, m, std::regex("(kill|hang|corrupt|nan):([0-9]{1,6})"))) {
    const std::string kind = m[1];
    plan.fault_ = kind == "kill"      ? Fault::kill
                  : kind == "hang"    ? Fault::hang
                  : kind == "corrupt" ? Fault::corrupt
                                      : Fault::nan;
    plan.rank_ = std::stoi(m[2]);
  } else {
    throw UserError(fmt::format(
        "--fault '{}': expected kill:RANK, hang:RANK, corrupt:RANK, nan:RANK or wrong (test only)",
        spec));
  }
  plan.spec_ = spec;
  return plan;
}

Fault FaultPlan::at(FaultPoint point, int rank, int64_t iteration) const {
  switch (fault_) {
    case Fault::kill:
    case Fault::hang:
    case Fault::nan:
      return point == FaultPoint::iteration_start && rank == rank_ && iteration == kFaultIteration
                 ? fault_
                 : Fault::none;
    case Fault::corrupt:
      return point == FaultPoint::replica_check && rank == rank_ ? fault_ : Fault::none;
    case Fault::wrong:
      return point == FaultPoint::result_check && rank == 0 ? fault_ : Fault::none;
    case Fault::none:
      break;
  }
  return Fault::none;
}

}  // namespace dtbench
