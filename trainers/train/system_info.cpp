#include "train/system_info.h"

#include <sys/utsname.h>
#include <torch/version.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/allocator.h"
#include "common/files.h"
#include "common/git_commit.h"

namespace dtbench {
namespace {

// The value of the first "key<sep>value" line of a text file, trimmed; "" if absent.
std::string field_of(const std::string& path, const std::string& key, char sep) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    auto at = line.find(sep);
    if (at == std::string::npos) continue;
    std::string value = line.substr(at + 1);
    value.erase(0, value.find_first_not_of(" \t\""));
    value.erase(value.find_last_not_of(" \t\"") + 1);
    return value;
  }
  return "";
}

int64_t memory_bytes() {
  std::string kib = field_of("/proc/meminfo", "MemTotal", ':');
  return kib.empty() ? 0 : std::stoll(kib) * 1024;
}

}  // namespace

nlohmann::json describe_system(const std::vector<std::string>& dataset_files) {
  utsname uts{};
  uname(&uts);
  nlohmann::json datasets = nlohmann::json::array();
  for (const auto& file : dataset_files) {
    datasets.push_back({{"file", std::filesystem::path(file).filename().string()},
                        {"bytes", std::filesystem::file_size(file)},
                        {"sha256", sha256_of_file(file)}});
  }
  return {
      {"hostname", uts.nodename},
      {"cpu_model", field_of("/proc/cpuinfo", "model name", ':')},
      {"cores", sysconf(_SC_NPROCESSORS_ONLN)},
      {"memory_bytes", memory_bytes()},
      {"os", field_of("/etc/os-release", "PRETTY_NAME", '=')},
      {"kernel", std::string(uts.sysname) + " " + uts.release + " " + uts.machine},
      {"compiler", std::string("g++ ") + __VERSION__},
      {"libtorch", TORCH_VERSION},
      {"git_commit", git_commit()},
      {"malloc", allocator_settings()},
      {"datasets", datasets},
  };
}

}  // namespace dtbench
