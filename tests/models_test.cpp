// The models have exactly the published sizes and map images to 10 logits.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "common/error.h"
#include "models/models.h"

namespace dtbench {
namespace {

int64_t parameter_count(const Classifier& m) {
  int64_t n = 0;
  for (const auto& p : m->parameters()) n += p.numel();
  return n;
}

TEST(Models, Vgg11HasTheCs744Size) {
  Classifier m = find_model("vgg11").make();
  EXPECT_EQ(parameter_count(m), 9231114);
  EXPECT_EQ(m->parameters().size(), 34u);  // gradient tensors
  EXPECT_EQ(m->forward(torch::zeros({2, 3, 32, 32})).sizes(), (torch::IntArrayRef{2, 10}));
}

TEST(Models, LeNet5HasTheClassicSize) {
  Classifier m = find_model("lenet5").make();
  EXPECT_EQ(parameter_count(m), 61706);
  EXPECT_EQ(m->parameters().size(), 10u);
  EXPECT_EQ(m->forward(torch::zeros({3, 1, 32, 32})).sizes(), (torch::IntArrayRef{3, 10}));
}

TEST(Models, SameSeedSameInitialisation) {
  torch::manual_seed(4);
  auto a = find_model("lenet5").make()->parameters();
  torch::manual_seed(4);
  auto b = find_model("lenet5").make()->parameters();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i]));
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
