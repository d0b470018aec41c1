// The strategies' factories (sync/factories.cpp) against the catalogue of methods: one each, and
// every one builds.
#include <gtest/gtest.h>

#include "common/error.h"
#include "sync/grad_sync.h"

namespace dtbench {
namespace {

TEST(Factories, EveryMethodOfTheCatalogueIsBuilt) {
  for (const auto& m : sync_methods()) {
    EXPECT_TRUE(has_factory(m.name)) << m.name;
    SyncOptions options;
    options.mode = m.modes.front();
    EXPECT_NE(make_sync(m.name, options), nullptr) << m.name;
  }
}

TEST(Factories, AnUnknownNameIsAUserError) {
  EXPECT_THROW(make_sync("ring", SyncOptions{}), UserError);
  EXPECT_FALSE(has_factory("ring"));
}

}  // namespace
}  // namespace dtbench
