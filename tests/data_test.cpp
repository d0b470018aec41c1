// CIFAR-10 and MNIST loaders on small files in the official formats, and every corrupt-file
// case: each must be a UserError naming the file and the problem.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "data/cifar10.h"
#include "data/mnist.h"
#include "fixtures.h"

namespace dtbench {
namespace {

using testing::TempDir;
using testing::user_error;

TEST(Cifar10, ReadsRecordsAsLabelThenRgbPlanes) {
  TempDir dir;
  testing::write_cifar10(dir.path(), 3);
  Dataset train = load_cifar10(dir.path(), Split::train);
  Dataset test = load_cifar10(dir.path(), Split::test);
  ASSERT_EQ(train.size(), 15);
  ASSERT_EQ(test.size(), 3);
  EXPECT_EQ(train.images.sizes(), (torch::IntArrayRef{15, 3, 32, 32}));
  EXPECT_EQ(train.files.size(), 5u);
  // Record r of each file: label r % 10, pixel p = (r * 7 + p) % 251 with p over R, G, B planes.
  EXPECT_EQ(train.labels[4].item<int64_t>(), 1);  // file 2, record 1
  auto image = train.images[4];
  EXPECT_EQ(image[0][0][0].item<uint8_t>(), 7);                 // R plane, p = 0
  EXPECT_EQ(image[1][0][0].item<uint8_t>(), (7 + 1024) % 251);  // G plane, p = 1024
  EXPECT_EQ(image[2][31][31].item<uint8_t>(), (7 + 3071) % 251);
}

TEST(Cifar10, MissingFileIsNamed) {
  TempDir dir;
  std::string message = user_error([&] { load_cifar10(dir.path(), Split::test); });
  EXPECT_NE(message.find("test_batch.bin: file not found"), std::string::npos) << message;
}

TEST(Cifar10, TruncatedFileIsNamed) {
  TempDir dir;
  testing::write_cifar10(dir.path(), 2);
  auto bytes = testing::cifar_records({1, 2});
  bytes.resize(bytes.size() - 100);
  testing::write_bytes(dir / "cifar-10-batches-bin/data_batch_3.bin", bytes);
  std::string message = user_error([&] { load_cifar10(dir.path(), Split::train); });
  EXPECT_NE(message.find("data_batch_3.bin: truncated"), std::string::npos) << message;
}

TEST(Cifar10, LabelOutOfRangeIsNamed) {
  TempDir dir;
  testing::write_bytes(dir / "cifar-10-batches-bin/test_batch.bin",
                       testing::cifar_records({3, 10}));
  std::string message = user_error([&] { load_cifar10(dir.path(), Split::test); });
  EXPECT_NE(message.find("test_batch.bin: record 1 has label 10"), std::string::npos) << message;
}

class MnistFormats : public ::testing::TestWithParam<bool> {};

TEST_P(MnistFormats, ReadsCountFromHeaderGzippedOrNot) {
  TempDir dir;
  testing::write_mnist(dir.path(), 30, 7, /*gzip=*/GetParam());
  Dataset train = load_mnist(dir.path(), Split::train);
  Dataset test = load_mnist(dir.path(), Split::test);
  EXPECT_EQ(train.size(), 30);
  EXPECT_EQ(test.size(), 7);
  EXPECT_EQ(train.images.sizes(), (torch::IntArrayRef{30, 1, 28, 28}));
  EXPECT_EQ(train.labels[13].item<int64_t>(), 3);
  EXPECT_EQ(train.files[0].size() > 3 && train.files[0].substr(train.files[0].size() - 3) == ".gz",
            GetParam());
}

INSTANTIATE_TEST_SUITE_P(GzipOrPlain, MnistFormats, ::testing::Bool());

TEST(Mnist, WrongMagicIsNamed) {
  TempDir dir;
  testing::write_mnist(dir.path(), 5, 5, false);
  testing::write_bytes(dir / "mnist/t10k-labels-idx1-ubyte",
                       testing::idx_file(2051, {5}, {0, 1, 2, 3, 4}));
  std::string message = user_error([&] { load_mnist(dir.path(), Split::test); });
  EXPECT_NE(message.find("t10k-labels-idx1-ubyte: wrong magic number 2051"), std::string::npos)
      << message;
}

TEST(Mnist, TruncatedImagesAreNamed) {
  TempDir dir;
  testing::write_mnist(dir.path(), 5, 5, false);
  testing::write_bytes(dir / "mnist/train-images-idx3-ubyte",
                       testing::idx_file(2051, {5, 28, 28}, std::vector<uint8_t>(4 * 784)));
  std::string message = user_error([&] { load_mnist(dir.path(), Split::train); });
  EXPECT_NE(message.find("train-images-idx3-ubyte: truncated"), std::string::npos) << message;
}

TEST(Mnist, TruncatedHeaderIsNamed) {
  TempDir dir;
  testing::write_mnist(dir.path(), 5, 5, true);
  testing::write_gzipped(dir / "mnist/train-labels-idx1-ubyte.gz", {0, 0, 8});
  std::string message = user_error([&] { load_mnist(dir.path(), Split::train); });
  EXPECT_NE(message.find("train-labels-idx1-ubyte.gz: truncated"), std::string::npos) << message;
}

TEST(Mnist, LabelOutOfRangeIsNamed) {
  TempDir dir;
  testing::write_mnist(dir.path(), 3, 3, false);
  testing::write_bytes(dir / "mnist/t10k-labels-idx1-ubyte",
                       testing::idx_file(2049, {3}, {1, 12, 2}));
  std::string message = user_error([&] { load_mnist(dir.path(), Split::test); });
  EXPECT_NE(message.find("label 12 of item 1"), std::string::npos) << message;
}

TEST(Mnist, CountMismatchIsNamed) {
  TempDir dir;
  testing::write_mnist(dir.path(), 3, 3, false);
  testing::write_bytes(dir / "mnist/t10k-labels-idx1-ubyte", testing::idx_file(2049, {2}, {1, 2}));
  std::string message = user_error([&] { load_mnist(dir.path(), Split::test); });
  EXPECT_NE(message.find("2 labels for 3 images"), std::string::npos) << message;
}

TEST(Mnist, CorruptGzipIsNamed) {
  TempDir dir;
  testing::write_mnist(dir.path(), 50, 3, true);
  std::string path = dir / "mnist/train-images-idx3-ubyte.gz";
  auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size / 2);
  std::string message = user_error([&] { load_mnist(dir.path(), Split::train); });
  EXPECT_NE(message.find("train-images-idx3-ubyte.gz"), std::string::npos) << message;
}

TEST(Mnist, MissingFileIsNamed) {
  TempDir dir;
  std::string message = user_error([&] { load_mnist(dir.path(), Split::train); });
  EXPECT_NE(message.find("mnist/train-images-idx3-ubyte: file not found"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace dtbench
