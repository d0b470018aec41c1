// When an experiment has repeated enough (harness/run/interval.h): its interval against the
// target, and against the others of its group.
#include "run/interval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace dtbench {
namespace {

RepeatedInterval of(std::vector<double> values) {
  return interval_of_values(std::move(values));
}

TEST(Interval, TightOnlyWithEnoughRepetitionsWithinTheTarget) {
  const RepeatedInterval r = of({1.00, 1.01, 0.99});  // +-2.5% (t = 4.30, sd 0.01)
  EXPECT_NEAR(r.half_width, 4.303 * 0.01 / std::sqrt(3.0), 1e-3);
  EXPECT_TRUE(tight(r, 0.03, 3));
  EXPECT_FALSE(tight(r, 0.02, 3));
  EXPECT_FALSE(tight(r, 0.03, 4));         // not yet the least repetitions
  EXPECT_FALSE(tight(of({1.0}), 1e9, 1));  // one value: no interval
}

TEST(Interval, ApartWhenItOverlapsNoneOfItsGroup) {
  const RepeatedInterval fast = of({1.0, 1.1, 0.9}), slow = of({2.0, 2.1, 1.9});
  const RepeatedInterval near = of({1.05, 1.15, 0.95});
  EXPECT_TRUE(separated(fast, {slow}));
  EXPECT_TRUE(separated(slow, {fast}));
  EXPECT_FALSE(separated(fast, {slow, near}));  // one overlap is enough to keep repeating
  EXPECT_FALSE(separated(fast, {}));            // nothing to rank against
  EXPECT_FALSE(separated(fast, {of({2.0})}));   // another without an interval yet
  EXPECT_FALSE(separated(of({1.0}), {slow}));
}

}  // namespace
}  // namespace dtbench
