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
  } else if (std::regex_match(spec, m, std::regex("(kill|hang|corrupt):([0-9]{1,6})"))) {
    plan.fault_ = m[1] == "kill" ? Fault::kill : m[1] == "hang" ? Fault::hang : Fault::corrupt;
    plan.rank_ = std::stoi(m[2]);
  } else {
    throw UserError(fmt::format(
        "--fault '{}': expected kill:RANK, hang:RANK, corrupt:RANK or wrong (test only)", spec));
  }
  plan.spec_ = spec;
  return plan;
}

Fault FaultPlan::at(FaultPoint point, int rank, int64_t iteration) const {
  switch (fault_) {
    case Fault::kill:
    case Fault::hang:
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
