#include "record/system_info.h"

#include <mpi.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/allocator.h"
#include "common/environment.h"
#include "common/files.h"
#include "common/git_commit.h"
#include "common/slurm.h"

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

// The MPI library and the MCA parameters its ranks were given (OMPI_MCA_* in the environment:
// mpirun's --mca options and dtbench's own defaults, without the launcher's bookkeeping of job
// ids, addresses and directories); null when MPI is not in use.
nlohmann::json mpi_settings() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) return nullptr;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string library(version, static_cast<size_t>(length));
  library = library.substr(0, library.find_first_of(",\n"));
  nlohmann::json mca = nlohmann::json::object();
  const std::string prefix = "OMPI_MCA_";
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (entry.rfind(prefix, 0) != 0 || eq == std::string::npos) continue;
    std::string name = entry.substr(prefix.size(), eq - prefix.size());
    bool bookkeeping = false;
    // OpenMPI 4's ORTE and 5's PRRTE set these for their own bookkeeping, not as settings.
    for (const char* launcher : {"orte_", "ess", "pmix", "initial_wdir", "shmem_", "PREFIXES",
                                 "num_procs", "cpu_type", "mca_base_component_path"})
      bookkeeping = bookkeeping || name.rfind(launcher, 0) == 0;
    if (!bookkeeping) mca[name] = entry.substr(eq + 1);
  }
  return {{"library", library}, {"mca", mca}};
}

// oneDNN's kernels, as the rank's environment chose them: libtorch's convolutions run those of the
// newest instruction set the CPU has unless ONEDNN_MAX_CPU_ISA holds them lower (docs/testing.md).
std::string cpu_kernel_settings() {
  const std::string isa = env_text("ONEDNN_MAX_CPU_ISA");
  return isa.empty() ? "oneDNN default" : "environment (ONEDNN_MAX_CPU_ISA=" + isa + ")";
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
      {"libtorch", DTBENCH_TORCH_VERSION},
      {"git_commit", git_commit()},
      {"git_dirty", is_dirty_commit(git_commit())},
      {"launcher", launcher()},
      {"slurm", slurm_record()},
      {"malloc", allocator_settings()},
      {"cpu_kernels", cpu_kernel_settings()},
      {"mpi", mpi_settings()},
      {"datasets", datasets},
  };
}

}  // namespace dtbench
