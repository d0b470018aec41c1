// The models have exactly the published sizes and map images to 10 logits.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "catalogue/models.h"
#include "common/error.h"
#include "model/parameter_shapes.h"
#include "models/make_model.h"

namespace dtbench {
namespace {

int64_t parameter_count(const Classifier& m) {
  int64_t n = 0;
  for (const auto& p : m->parameters()) n += p.numel();
  return n;
}

TEST(Models, Vgg11HasTheCs744Size) {
  Classifier m = make_model("vgg11");
  EXPECT_EQ(parameter_count(m), 9231114);
  EXPECT_EQ(m->parameters().size(), 34u);  // gradient tensors
  EXPECT_EQ(m->forward(torch::zeros({2, 3, 32, 32})).sizes(), (torch::IntArrayRef{2, 10}));
}

TEST(Models, LeNet5HasTheClassicSize) {
  Classifier m = make_model("lenet5");
  EXPECT_EQ(parameter_count(m), 61706);
  EXPECT_EQ(m->parameters().size(), 10u);
  EXPECT_EQ(m->forward(torch::zeros({3, 1, 32, 32})).sizes(), (torch::IntArrayRef{3, 10}));
}

TEST(Models, SameSeedSameInitialisation) {
  torch::manual_seed(4);
  auto a = make_model("lenet5")->parameters();
  torch::manual_seed(4);
  auto b = make_model("lenet5")->parameters();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i]));
}

// The parameter lists the cost model reads (model/parameter_shapes.h) are the trainer's models.
TEST(Models, CostModelsShapesAreTheTrainersModels) {
  for (const char* name : {"vgg11", "lenet5"}) {
    const auto listed = model::builtin_parameters(name);
    auto model = make_model(name);
    const auto named = model->named_parameters();
    ASSERT_EQ(listed.size(), named.size()) << name;
    for (size_t i = 0; i < listed.size(); ++i) {
      EXPECT_EQ(listed[i].name, named[i].key()) << name << " " << i;
      EXPECT_EQ(listed[i].shape, named[i].value().sizes().vec()) << listed[i].name;
    }
  }
}

TEST(Models, UnknownNameListsTheKnownOnes) {
  try {
    find_model("resnet");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "unknown model 'resnet' (known: vgg11, lenet5)");
  }
}

}  // namespace
}  // namespace dtbench
