#include "cluster/node_files.h"

#include <fmt/format.h>

#include <filesystem>

#include "common/files.h"

namespace dtbench {

namespace fs = std::filesystem;

std::string etc_of(const std::string& ns) {
  return "/etc/netns/" + ns;
}

void write_node_hosts(const ClusterSpec& spec) {
  std::string text = "127.0.0.1 localhost\n";
  for (int i = 0; i < spec.hosts; ++i) {
    text += fmt::format("{} {}\n", spec.address_of(i), spec.namespace_of(i));
  }
  text += fmt::format("{}.254 {}ctl\n", spec.subnet, spec.prefix);
  for (int i = 0; i < spec.hosts; ++i)
    write_file_atomically(etc_of(spec.namespace_of(i)) + "/hosts", text);
}

void remove_node_files(const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/etc/netns", ec)) {
    if (entry.path().filename().string().rfind(prefix + "n", 0) != 0) continue;
    fs::remove_all(entry.path() / "ssh", ec);
    fs::remove(entry.path() / "hosts", ec);
    fs::remove(entry.path(), ec);  // only if nothing else is left in it
  }
}

}  // namespace dtbench
