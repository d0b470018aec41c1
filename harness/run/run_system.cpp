#include "run/run_system.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/process.h"
#include "common/software_stack.h"
#include "record/system_info.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

std::string read_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

nlohmann::json network_interfaces() {
  nlohmann::json nics = nlohmann::json::array();
  std::error_code ec;
  for (const auto& dev : fs::directory_iterator("/sys/class/net", ec)) {
    std::string speed = read_line(dev.path() / "speed");  // Mbit/s; unreadable for virtual ones
    nics.push_back({{"name", dev.path().filename().string()},
                    {"mtu", read_line(dev.path() / "mtu")},
                    {"speed_mbit", speed.empty() || speed[0] == '-' ? "unknown" : speed},
                    {"address", read_line(dev.path() / "address")}});
  }
  return nics;
}

std::string output_of(const std::vector<std::string>& argv) {
  std::string out;
  try {
    if (run_captured(argv, &out) != 0) return "unknown";
  } catch (const std::exception&) {
    return "unknown";
  }
  return out.substr(0, out.find('\n'));
}

nlohmann::json package_versions() {
  nlohmann::json versions;
  for (const char* package :
       {"libtorch-dev", "libopenmpi-dev", "libgloo-dev", "libbenchmark-dev", "python3-torch"}) {
    versions[package] = output_of({"dpkg-query", "-W", "-f=${Version}", package});
  }
  return versions;
}

std::vector<std::string> dataset_files(const std::string& data_dir) {
  std::vector<std::string> files;
  for (const char* sub : {"cifar-10-batches-bin", "mnist"}) {
    std::error_code ec;
    for (const auto& f : fs::directory_iterator(fs::path(data_dir) / sub, ec)) {
      if (f.is_regular_file()) files.push_back(f.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

nlohmann::json describe_run_system(const HostsFile& hosts, const std::string& data_dir,
                                   const nlohmann::json& cluster_status) {
  nlohmann::json system = describe_system(dataset_files(data_dir));
  nlohmann::json host_list = nlohmann::json::array();
  for (const auto& h : hosts.hosts) host_list.push_back({{"name", h.name}, {"slots", h.slots}});
  system["hosts_file"] = hosts.path;
  system["hosts"] = host_list;
  system["emulated_cluster"] = hosts.emulated;
  system["network"] =
      cluster_status.is_null() ? nlohmann::json("the machines' own network") : cluster_status;
  if (!hosts.link_rate.empty()) system["stated_link_rate"] = hosts.link_rate;
  system["nics"] = network_interfaces();
  system["openmpi"] = output_of({"mpirun", "--version"});
  system["packages"] = package_versions();
  if (!system["slurm"].is_null()) system["slurm_version"] = output_of({"sinfo", "--version"});
  system["stack"] = software_stack(system);
  return system;
}

}  // namespace dtbench
