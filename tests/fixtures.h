#pragma once
// Small datasets written in the official binary formats, for tests that must not touch the
// network or the real data.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/error.h"

namespace dtbench::testing {

// A fresh directory under $TMPDIR, removed with everything in it when this goes out of scope.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Environment variables as a launcher would set them, for this object's lifetime: every name in
// `read` starts unset, then `values` are set; all are restored afterwards.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const std::vector<std::string>& read,
                    const std::map<std::string, std::string>& values);
  ~ScopedEnvironment();
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::vector<std::string> read_;
  std::map<std::string, std::string> saved_;
};

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);
void write_gzipped(const std::string& path, const std::vector<uint8_t>& bytes);

// CIFAR-10 records (label byte + 3072 pixel bytes) where pixel p of record r has value
// (r * 7 + p) % 251 and the label is labels[r].
std::vector<uint8_t> cifar_records(const std::vector<uint8_t>& labels);
// Writes <dir>/cifar-10-batches-bin/data_batch_1..5.bin (records_per_file each) and
// test_batch.bin, labels cycling 0..9.
void write_cifar10(const std::string& dir, int records_per_file);

// An idx file: magic, big-endian dimensions, payload.
std::vector<uint8_t> idx_file(uint32_t magic, const std::vector<uint32_t>& dims,
                              const std::vector<uint8_t>& payload);

// A learnable MNIST-format set in <dir>/mnist/: digit k is a bright 8x8 square at a position
// that depends on k, plus deterministic noise. gzip selects .gz files.
void write_mnist(const std::string& dir, int train_count, int test_count, bool gzip);

// The UserError message of body, or "" when it does not throw one.
template <typename F>
std::string user_error(F body) {
  try {
    body();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace dtbench::testing
