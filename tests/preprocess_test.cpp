// Normalisation, MNIST padding, and the seeded CS744 augmentation (crop 32 pad 4 + flip),
// checked against a reference built from torch ops.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

#include "catalogue/datasets.h"
#include "data/cifar10.h"
#include "data/mnist.h"
#include "data/preprocess.h"
#include "fixtures.h"

namespace dtbench {
namespace {

using testing::TempDir;

torch::Tensor normalise(torch::Tensor raw, const Preprocess& pre) {
  auto mean = torch::tensor(pre.mean).view({-1, 1, 1});
  auto std = torch::tensor(pre.std).view({-1, 1, 1});
  return (raw.to(torch::kFloat32) / 255.0 - mean) / std;
}

class Cifar : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_cifar10(dir_.path(), 20);
    ds_ = load_cifar10(dir_.path(), Split::train);
  }
  TempDir dir_;
  Dataset ds_;
  const Preprocess& pre_ = find_dataset("cifar10").preprocess;
};

TEST_F(Cifar, EvaluationBatchIsNormalisedOnly) {
  Batch b = make_batch(ds_, {3, 0}, pre_, /*train=*/false, 1, 0);
  EXPECT_TRUE(torch::allclose(b.images[0], normalise(ds_.images[3], pre_), 1e-5, 1e-5));
  EXPECT_TRUE(torch::allclose(b.images[1], normalise(ds_.images[0], pre_), 1e-5, 1e-5));
  EXPECT_EQ(b.labels[0].item<int64_t>(), ds_.labels[3].item<int64_t>());
}

TEST_F(Cifar, AugmentationIsPadCropFlipOfTheSourceImage) {
  std::vector<int64_t> indices(ds_.size());
  std::iota(indices.begin(), indices.end(), 0);
  Batch b = make_batch(ds_, indices, pre_, /*train=*/true, /*seed=*/7, /*epoch=*/3);
  for (int64_t i : indices) {
    Placement p = placement_for(pre_, 32, true, 7, 3, i);
    auto padded = torch::constant_pad_nd(ds_.images[i], {4, 4, 4, 4}, 0);
    auto crop = padded.slice(1, p.oy + 4, p.oy + 36).slice(2, p.ox + 4, p.ox + 36);
    if (p.flip) crop = crop.flip({2});
    EXPECT_TRUE(torch::allclose(b.images[i], normalise(crop, pre_), 1e-5, 1e-5)) << "sample " << i;
  }
}

TEST_F(Cifar, AugmentationDependsOnSeedEpochAndIndexOnly) {
  Batch a = make_batch(ds_, {5, 6, 7}, pre_, true, 1, 2);
  Batch again = make_batch(ds_, {7, 5}, pre_, true, 1, 2);  // other batch, other order
  EXPECT_TRUE(torch::equal(a.images[0], again.images[1]));
  EXPECT_TRUE(torch::equal(a.images[2], again.images[0]));
  Batch next_epoch = make_batch(ds_, {5, 6, 7}, pre_, true, 1, 3);
  Batch other_seed = make_batch(ds_, {5, 6, 7}, pre_, true, 2, 2);
  EXPECT_FALSE(torch::equal(a.images, next_epoch.images));
  EXPECT_FALSE(torch::equal(a.images, other_seed.images));
}

TEST(Augmentation, CoversEveryOffsetAndBothFlips) {
  const Preprocess& pre = find_dataset("cifar10").preprocess;
  std::set<int64_t> oy, ox;
  std::set<bool> flips;
  for (int64_t i = 0; i < 2000; ++i) {
    Placement p = placement_for(pre, 32, true, 1, 0, i);
    oy.insert(p.oy);
    ox.insert(p.ox);
    flips.insert(p.flip);
  }
  EXPECT_EQ(oy, (std::set<int64_t>{-4, -3, -2, -1, 0, 1, 2, 3, 4}));
  EXPECT_EQ(ox, oy);
  EXPECT_EQ(flips.size(), 2u);
}

TEST(MnistPreprocess, PadsTwentyEightToThirtyTwoCentred) {
  TempDir dir;
  testing::write_mnist(dir.path(), 4, 4, false);
  Dataset ds = load_mnist(dir.path(), Split::train);
  const Preprocess& pre = find_dataset("mnist").preprocess;
  Batch b = make_batch(ds, {1}, pre, /*train=*/true, 1, 0);  // MNIST is never augmented
  ASSERT_EQ(b.images.sizes(), (torch::IntArrayRef{1, 1, 32, 32}));
  auto expected = normalise(torch::constant_pad_nd(ds.images[1], {2, 2, 2, 2}, 0), pre);
  EXPECT_TRUE(torch::allclose(b.images[0], expected, 1e-5, 1e-5));
}

}  // namespace
}  // namespace dtbench
