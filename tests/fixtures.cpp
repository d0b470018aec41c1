#include "fixtures.h"

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common/rng.h"

namespace dtbench::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "dtbench-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

ScopedEnvironment::ScopedEnvironment(const std::vector<std::string>& read,
                                     const std::map<std::string, std::string>& values)
    : read_(read) {
  for (const auto& name : read_) {
    if (const char* old = std::getenv(name.c_str())) saved_[name] = old;
    unsetenv(name.c_str());
  }
  for (const auto& [name, value] : values) setenv(name.c_str(), value.c_str(), 1);
}

ScopedEnvironment::~ScopedEnvironment() {
  for (const auto& name : read_) unsetenv(name.c_str());
  for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

void write_gzipped(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(file);
}

std::vector<uint8_t> cifar_records(const std::vector<uint8_t>& labels) {
  std::vector<uint8_t> bytes;
  for (size_t r = 0; r < labels.size(); ++r) {
    bytes.push_back(labels[r]);
    for (int p = 0; p < 3072; ++p) bytes.push_back(static_cast<uint8_t>((r * 7 + p) % 251));
  }
  return bytes;
}

void write_cifar10(const std::string& dir, int records_per_file) {
  std::vector<uint8_t> labels;
  labels.reserve(records_per_file);
  for (int r = 0; r < records_per_file; ++r) labels.push_back(static_cast<uint8_t>(r % 10));
  std::string base = dir + "/cifar-10-batches-bin/";
  for (int i = 1; i <= 5; ++i) {
    write_bytes(base + "data_batch_" + std::to_string(i) + ".bin", cifar_records(labels));
  }
  write_bytes(base + "test_batch.bin", cifar_records(labels));
}

std::vector<uint8_t> idx_file(uint32_t magic, const std::vector<uint32_t>& dims,
                              const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> bytes;
  auto put = [&](uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<uint8_t>(v >> shift));
  };
  put(magic);
  for (uint32_t d : dims) put(d);
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  return bytes;
}

namespace {

void write_mnist_split(const std::string& dir, const std::string& prefix, int count, bool gzip,
                       uint64_t seed) {
  std::vector<uint8_t> pixels, labels;
  for (int i = 0; i < count; ++i) {
    int digit = i % 10;
    labels.push_back(static_cast<uint8_t>(digit));
    int top = 2 + (digit / 5) * 12, left = 2 + (digit % 5) * 5;
    for (int y = 0; y < 28; ++y) {
      for (int x = 0; x < 28; ++x) {
        bool lit = y >= top && y < top + 8 && x >= left && x < left + 8;
        uint64_t noise =
            hash_keys({seed, static_cast<uint64_t>(i), static_cast<uint64_t>(y * 28 + x)});
        pixels.push_back(static_cast<uint8_t>((lit ? 200 : 0) + noise % 40));
      }
    }
  }
  auto n = static_cast<uint32_t>(count);
  auto write = gzip ? write_gzipped : write_bytes;
  std::string ext = gzip ? ".gz" : "";
  write(dir + "/mnist/" + prefix + "-images-idx3-ubyte" + ext, idx_file(2051, {n, 28, 28}, pixels));
  write(dir + "/mnist/" + prefix + "-labels-idx1-ubyte" + ext, idx_file(2049, {n}, labels));
}

}  // namespace

void write_mnist(const std::string& dir, int train_count, int test_count, bool gzip) {
  write_mnist_split(dir, "train", train_count, gzip, 1);
  write_mnist_split(dir, "t10k", test_count, gzip, 2);
}

}  // namespace dtbench::testing
