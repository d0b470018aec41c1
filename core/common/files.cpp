#include "common/files.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <openssl/evp.h>
#include <unistd.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "common/error.h"
#include "common/text.h"

namespace dtbench {

std::vector<uint8_t> read_maybe_gzipped(const std::string& path) {
  require(std::filesystem::is_regular_file(path), fmt::format("{}: file not found", path));
  gzFile file = gzopen(path.c_str(), "rb");
  require(file != nullptr, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(file, gzclose);
  gzbuffer(file, 1 << 20);
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> chunk(1 << 20);
  for (;;) {
    int n = gzread(file, chunk.data(), static_cast<unsigned>(chunk.size()));
    if (n < 0) {
      int code = 0;
      throw UserError(fmt::format("{}: corrupt gzip stream: {}", path, gzerror(file, &code)));
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + n);
  }
  return bytes;
}

std::string read_text_file(const std::string& path) {
  const std::vector<uint8_t> bytes = read_maybe_gzipped(path);
  return {bytes.begin(), bytes.end()};
}

std::optional<std::string> read_rest(int fd) {
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return text;
    text.append(chunk, static_cast<size_t>(n));
  }
}

std::optional<std::string> read_proc_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> text = read_rest(fd);
  close(fd);
  return text;
}

nlohmann::json read_json_or_null(const std::string& path) {
  if (!std::filesystem::exists(path)) return nullptr;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text_file(path), nullptr, /*allow_exceptions=*/false);
  } catch (const UserError&) {
    return nullptr;
  }
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

std::string stored_file(const std::string& dir, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path compressed = fs::path(dir) / (name + ".gz");
  return (fs::exists(compressed) ? compressed : fs::path(dir) / name).string();
}

void require_writable(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : ".";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UserError(fmt::format("cannot write {}: {}", path, ec.message()));
  if (access(dir.c_str(), W_OK) != 0) {
    throw UserError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
}

void write_file_atomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  fs::path target(path);
  require_writable(path);
  std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  if (ends_with(path, ".gz")) {
    gzFile file = gzopen(tmp.c_str(), "wb6");
    require(file != nullptr, fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
    const bool written =
        text.empty() || gzwrite(file, text.data(), static_cast<unsigned>(text.size())) > 0;
    require(gzclose(file) == Z_OK && written, fmt::format("{}: write failed", tmp));
    fs::rename(tmp, target);
    return;
  }
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    require(out.good(), fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
    out << text;
    out.flush();
    require(out.good(), fmt::format("{}: write failed: {}", tmp, std::strerror(errno)));
  }
  fs::rename(tmp, target);
}

std::string sha256_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  require(in.good(), fmt::format("{}: cannot open for checksum", path));
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::vector<char> chunk(1 << 20);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    EVP_DigestUpdate(ctx.get(), chunk.data(), static_cast<size_t>(in.gcount()));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace dtbench
