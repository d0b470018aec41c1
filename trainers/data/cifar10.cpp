#include "data/cifar10.h"

#include <fmt/core.h>

#include <cstring>

#include "catalogue/datasets.h"
#include "common/error.h"
#include "common/files.h"

namespace dtbench {
namespace {

constexpr int64_t kSide = 32;
constexpr int64_t kPixels = 3 * kSide * kSide;
constexpr int64_t kRecord = 1 + kPixels;

std::vector<std::string> split_files(const std::string& data_dir, Split split) {
  std::string dir = data_dir + "/" + find_dataset("cifar10").dir + "/";
  if (split == Split::test) return {dir + "test_batch.bin"};
  std::vector<std::string> files;
  for (int i = 1; i <= 5; ++i) files.push_back(fmt::format("{}data_batch_{}.bin", dir, i));
  return files;
}

}  // namespace

Dataset load_cifar10(const std::string& data_dir, Split split) {
  Dataset ds;
  ds.name = split == Split::train ? "cifar10/train" : "cifar10/test";
  ds.files = split_files(data_dir, split);
  std::vector<std::vector<uint8_t>> contents;
  int64_t total = 0;
  for (const auto& file : ds.files) {
    contents.push_back(read_maybe_gzipped(file));
    auto bytes = static_cast<int64_t>(contents.back().size());
    require(bytes > 0 && bytes % kRecord == 0,
            fmt::format("{}: truncated or not CIFAR-10 binary: {} bytes is not a positive "
                        "multiple of the {}-byte record",
                        file, bytes, kRecord));
    total += bytes / kRecord;
  }
  ds.images = torch::empty({total, 3, kSide, kSide}, torch::kUInt8);
  ds.labels = torch::empty({total}, torch::kInt64);
  uint8_t* image = ds.images.data_ptr<uint8_t>();
  int64_t* label = ds.labels.data_ptr<int64_t>();
  int64_t row = 0;
  for (size_t f = 0; f < contents.size(); ++f) {
    const auto& bytes = contents[f];
    for (size_t offset = 0; offset < bytes.size(); offset += kRecord, ++row) {
      require(bytes[offset] < kClasses, fmt::format("{}: record {} has label {}, outside 0..9",
                                                    ds.files[f], offset / kRecord, bytes[offset]));
      label[row] = bytes[offset];
      std::memcpy(image + row * kPixels, bytes.data() + offset + 1, kPixels);
    }
  }
  return ds;
}

}  // namespace dtbench
