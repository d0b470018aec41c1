// The parameter lists the cost model reads (model/parameter_shapes.h) against the published
// sizes of the models (models_test.cpp checks dtbench's own against libtorch's), and the what-if
// sweep (model/what_if.h) against what its assumptions imply.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "model/parameter_shapes.h"
#include "model/what_if.h"

namespace dtbench::model {
namespace {

int64_t total(const std::vector<Parameter>& ps) {
  int64_t n = 0;
  for (const auto& p : ps) n += p.count();
  return n;
}

TEST(ParameterShapes, BuiltInModelsHaveTheirSizes) {
  EXPECT_EQ(total(builtin_parameters("vgg11")), 9231114);
  EXPECT_EQ(total(builtin_parameters("lenet5")), 61706);
  EXPECT_TRUE(builtin_parameters("resnet50").empty());
}

TEST(ParameterShapes, ListedModelsHaveTheirPublishedSizes) {
  const std::string shapes = DTBENCH_SOURCE_DIR "/model/shapes/";
  EXPECT_EQ(total(read_parameters(shapes + "resnet50.txt")), 25557032);
  EXPECT_EQ(total(read_parameters(shapes + "bert-base.txt")), 109482240);
  EXPECT_EQ(float_bytes(read_parameters(shapes + "resnet50.txt")).size(), 161u);
}

TEST(ParameterShapes, BadListsNameTheLine) {
  const std::string path = ::testing::TempDir() + "/shapes.txt";
  std::ofstream(path) << "# a comment\nfc.weight 10 x\n";
  try {
    read_parameters(path);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("line 2: 'x' is not a dimension"));
  }
  std::ofstream(path) << "fc.weight\n";
  EXPECT_THROW(read_parameters(path), std::invalid_argument);
  std::ofstream(path) << "# nothing\n";
  EXPECT_THROW(read_parameters(path), std::invalid_argument);
  EXPECT_THROW(read_parameters(path + ".missing"), std::invalid_argument);
}

TEST(WhatIf, EfficiencyFollowsEachMethodsBytes) {
  Scenario s;
  s.compute.forward_s = 0.1, s.compute.backward_s = 0.2, s.compute.optimizer_s = 0.01;
  s.compute.tensor_bytes = float_bytes(builtin_parameters("vgg11"));
  s.compute.ready_s = ready_by_bytes(s.compute.tensor_bytes, s.compute.backward_s);
  s.ranks = {2, 16, 1024};
  s.gbits = {1, 100};
  s.latency_s = 5e-5;
  const auto points = what_if(s);
  ASSERT_EQ(points.size(), what_if_methods().size() * 3 * 2);
  auto at = [&](const std::string& method, int n, double gbit) {
    for (const auto& p : points) {
      if (p.method == method && p.ranks == n && p.gbit == gbit) return p;
    }
    throw std::logic_error("missing point");
  };
  for (const auto& p : points) {
    EXPECT_GT(p.efficiency, 0);
    EXPECT_LE(p.efficiency, 1);
    EXPECT_NEAR(p.efficiency, 0.31 / p.iteration_s, 1e-12);
  }
  // gather+scatter grows with n through rank 0; the ring's bytes do not.
  EXPECT_LT(at("gather_scatter", 1024, 1).efficiency, at("gather_scatter", 16, 1).efficiency / 10);
  EXPECT_GT(at("allreduce", 1024, 100).efficiency, at("gather_scatter", 1024, 100).efficiency);
  // Overlap hides what blocking shows; a faster link helps every method.
  for (int n : {2, 16, 1024}) {
    EXPECT_GE(at("bucketed", n, 1).efficiency, at("allreduce", n, 1).efficiency) << n;
    for (const auto& m : what_if_methods()) {
      EXPECT_GE(at(m, n, 100).efficiency, at(m, n, 1).efficiency) << m << " " << n;
    }
  }
  // Sending less pays on a slow link; top-k's allgathers grow with n (each rank receives every
  // other's k entries) and at 1024 ranks cost more than bucketed's rings.
  s.shapes.clear();
  for (const auto& p : builtin_parameters("vgg11")) s.shapes.push_back(p.shape);
  const auto lossy = what_if(s);
  auto lossy_at = [&](const std::string& method, int n, double gbit) {
    for (const auto& p : lossy) {
      if (p.method == method && p.ranks == n && p.gbit == gbit) return p.efficiency;
    }
    throw std::logic_error("missing point");
  };
  for (const char* m : {"fp16", "powersgd", "topk", "local_sgd"}) {
    EXPECT_GT(lossy_at(m, 16, 1), lossy_at("bucketed", 16, 1)) << m;
  }
  EXPECT_GT(lossy_at("powersgd", 16, 1), lossy_at("fp16", 16, 1));
  EXPECT_LT(lossy_at("topk", 1024, 1), lossy_at("bucketed", 1024, 1));
  // The ring on 1024 ranks at 1 Gbit/s, blocking: the compute plus 34 tensors' rings.
  const Link link = tcp_link(1, 5e-5);
  double ring = 0;
  for (double b : s.compute.tensor_bytes) ring += ring_allreduce_s(1024, b, link);
  EXPECT_NEAR(at("allreduce", 1024, 1).iteration_s, 0.31 + ring, 1e-9);
}

TEST(WhatIf, GradientsReadyByBytesLastLayerFirst) {
  const auto ready = ready_by_bytes({1, 1, 2}, 1.0);
  EXPECT_DOUBLE_EQ(ready[2], 0.5);
  EXPECT_DOUBLE_EQ(ready[1], 0.75);
  EXPECT_DOUBLE_EQ(ready[0], 1.0);
}

}  // namespace
}  // namespace dtbench::model
