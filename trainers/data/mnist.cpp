#include "data/mnist.h"

#include <fmt/core.h>

#include <cstring>
#include <filesystem>

#include "catalogue/datasets.h"
#include "common/error.h"
#include "common/files.h"

namespace dtbench {
namespace {

constexpr uint32_t kImageMagic = 2051;  // 0x00000803: unsigned byte, 3 dimensions
constexpr uint32_t kLabelMagic = 2049;  // 0x00000801: unsigned byte, 1 dimension

// The plain file if present, else the gzipped one; the plain name when neither exists, so
// the "file not found" error names what the user is expected to provide.
std::string locate(const std::string& dir, const std::string& stem) {
  std::string plain = dir + "/" + stem;
  if (std::filesystem::exists(plain) || !std::filesystem::exists(plain + ".gz")) return plain;
  return plain + ".gz";
}

uint32_t big_endian_u32(const std::vector<uint8_t>& bytes, size_t offset) {
  return (uint32_t{bytes[offset]} << 24) | (uint32_t{bytes[offset + 1]} << 16) |
         (uint32_t{bytes[offset + 2]} << 8) | uint32_t{bytes[offset + 3]};
}

// Checks the idx header (magic, then one big-endian u32 per dimension) and the payload
// length; returns the dimensions.
std::vector<uint32_t> read_header(const std::string& file, const std::vector<uint8_t>& bytes,
                                  uint32_t magic, size_t dims) {
  size_t header = 4 * (1 + dims);
  require(bytes.size() >= header, fmt::format("{}: truncated: {} bytes is shorter than the "
                                              "{}-byte idx header",
                                              file, bytes.size(), header));
  uint32_t found = big_endian_u32(bytes, 0);
  require(found == magic,
          fmt::format("{}: wrong magic number {} (expected {})", file, found, magic));
  std::vector<uint32_t> shape;
  uint64_t payload = 1;
  for (size_t d = 0; d < dims; ++d) {
    shape.push_back(big_endian_u32(bytes, 4 * (1 + d)));
    payload *= shape.back();
  }
  require(bytes.size() == header + payload,
          fmt::format("{}: truncated or oversized: {} bytes, header says {}", file, bytes.size(),
                      header + payload));
  return shape;
}

}  // namespace

Dataset load_mnist(const std::string& data_dir, Split split) {
  std::string prefix = split == Split::train ? "train" : "t10k";
  std::string dir = data_dir + "/" + find_dataset("mnist").dir;
  std::string image_file = locate(dir, prefix + "-images-idx3-ubyte");
  std::string label_file = locate(dir, prefix + "-labels-idx1-ubyte");
  auto image_bytes = read_maybe_gzipped(image_file);
  auto label_bytes = read_maybe_gzipped(label_file);
  auto image_shape = read_header(image_file, image_bytes, kImageMagic, 3);
  auto label_shape = read_header(label_file, label_bytes, kLabelMagic, 1);
  require(image_shape[0] == label_shape[0],
          fmt::format("{}: {} labels for {} images in {}", label_file, label_shape[0],
                      image_shape[0], image_file));

  Dataset ds;
  ds.name = "mnist/" + std::string(split == Split::train ? "train" : "test");
  ds.files = {image_file, label_file};
  int64_t n = image_shape[0], rows = image_shape[1], cols = image_shape[2];
  ds.images = torch::empty({n, 1, rows, cols}, torch::kUInt8);
  std::memcpy(ds.images.data_ptr<uint8_t>(), image_bytes.data() + 16, n * rows * cols);
  ds.labels = torch::empty({n}, torch::kInt64);
  int64_t* label = ds.labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    uint8_t value = label_bytes[8 + i];
    require(value < kClasses,
            fmt::format("{}: label {} of item {} is outside 0..9", label_file, value, i));
    label[i] = value;
  }
  return ds;
}

}  // namespace dtbench
