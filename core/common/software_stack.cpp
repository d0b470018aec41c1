#include "common/software_stack.h"

#include <fmt/format.h>

#include <regex>

namespace dtbench {
namespace {

std::string text_at(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "unknown";
}

// A Debian package's version without its epoch and its packaging: "1:1.13.1+dfsg-4" -> 1.13.1.
std::string upstream_version(std::string version) {
  if (const auto colon = version.find(':'); colon != std::string::npos) version.erase(0, colon + 1);
  return version.substr(0, version.find_first_of("+~-"));
}

}  // namespace

nlohmann::json software_stack(const nlohmann::json& system) {
  if (system.contains("stack") && system["stack"].is_object()) return system["stack"];
  const auto packages = system.value("packages", nlohmann::json::object());
  // "mpirun (Open MPI) 4.1.4" -> "Open MPI 4.1.4"
  static const std::regex mpirun(R"(mpirun \((.+)\) (\S+).*)");
  const std::string mpi = std::regex_replace(text_at(system, "openmpi"), mpirun, "$1 $2");
  nlohmann::json stack = {{"distribution", text_at(system, "os")},
                          {"compiler", text_at(system, "compiler")},
                          {"libtorch", text_at(packages, "libtorch-dev")},
                          {"mpi", mpi},
                          {"gloo", text_at(packages, "libgloo-dev")},
                          {"python_torch", text_at(packages, "python3-torch")}};
  if (system.contains("slurm_version")) stack["slurm"] = text_at(system, "slurm_version");
  return stack;
}

std::string stack_label(const nlohmann::json& stack) {
  return fmt::format("libtorch {}, {}", upstream_version(text_at(stack, "libtorch")),
                     text_at(stack, "mpi"));
}

}  // namespace dtbench
