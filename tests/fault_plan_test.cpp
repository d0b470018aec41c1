// FaultPlan: each spec strikes its rank at its one named point, and nowhere else; a malformed
// spec is a UserError that names it.
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/fault_plan.h"

namespace dtbench {
namespace {

TEST(FaultPlan, EachFaultStrikesItsRankAtItsPointOnly) {
  const FaultPlan kill = FaultPlan::parse("kill:2");
  EXPECT_EQ(kill.at(FaultPoint::iteration_start, 2, kFaultIteration), Fault::kill);
  EXPECT_EQ(kill.at(FaultPoint::iteration_start, 2, kFaultIteration - 1), Fault::none);
  EXPECT_EQ(kill.at(FaultPoint::iteration_start, 1, kFaultIteration), Fault::none);
  EXPECT_EQ(kill.at(FaultPoint::replica_check, 2), Fault::none);

  const FaultPlan hang = FaultPlan::parse("hang:0");
  EXPECT_EQ(hang.at(FaultPoint::iteration_start, 0, kFaultIteration), Fault::hang);

  const FaultPlan nan = FaultPlan::parse("nan:1");
  EXPECT_EQ(nan.at(FaultPoint::iteration_start, 1, kFaultIteration), Fault::nan);
  EXPECT_EQ(nan.at(FaultPoint::iteration_start, 1, kFaultIteration + 1), Fault::none);
  EXPECT_EQ(nan.at(FaultPoint::iteration_start, 0, kFaultIteration), Fault::none);

  const FaultPlan corrupt = FaultPlan::parse("corrupt:1");
  EXPECT_EQ(corrupt.at(FaultPoint::replica_check, 1), Fault::corrupt);
  EXPECT_EQ(corrupt.at(FaultPoint::replica_check, 0), Fault::none);
  EXPECT_EQ(corrupt.at(FaultPoint::iteration_start, 1, kFaultIteration), Fault::none);

  const FaultPlan wrong = FaultPlan::parse("wrong");
  EXPECT_EQ(wrong.at(FaultPoint::result_check, 0), Fault::wrong);
  EXPECT_EQ(wrong.at(FaultPoint::result_check, 1), Fault::none);
  EXPECT_EQ(wrong.spec(), "wrong");

  const FaultPlan none;
  for (auto point :
       {FaultPoint::iteration_start, FaultPoint::replica_check, FaultPoint::result_check}) {
    EXPECT_EQ(none.at(point, 0, kFaultIteration), Fault::none);
  }
  EXPECT_EQ(FaultPlan::parse("").spec(), "");
}

TEST(FaultPlan, AMalformedSpecIsNamed) {
  for (const char* spec : {"kill", "kill:", "kill:x", "explode:1", "wrong:1", "hang:-1"}) {
    try {
      FaultPlan::parse(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + spec + "'"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace dtbench
