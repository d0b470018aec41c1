#include "common/thread_share.h"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "common/environment.h"

namespace dtbench {
namespace {

// The CPUs of the mask as a list of ranges, as /proc/PID/status's Cpus_allowed_list writes it.
std::string cpu_list(const cpu_set_t& set) {
  std::string out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    out += (out.empty() ? "" : ",") +
           (last == cpu ? std::to_string(cpu) : fmt::format("{}-{}", cpu, last));
    cpu = last;
  }
  return out;
}

// Slurm writes the tasks per node as "2(x3),1": 2 on each of the first three nodes, 1 on the
// fourth. The count on node `node`, or 0.
int tasks_on_node(const std::string& text, int node) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(',', at);
    const std::string part = text.substr(at, end == std::string::npos ? end : end - at);
    const size_t open = part.find("(x");
    const int tasks = positive_count(part.substr(0, open));
    const int repeat = open == std::string::npos
                           ? 1
                           : positive_count(part.substr(open + 2, part.size() - open - 3));
    if (tasks == 0 || repeat == 0) return 0;
    if (node < repeat) return tasks;
    node -= repeat;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return 0;
}

}  // namespace

std::string CpuPlace::key() const {
  return machine + " " + cpuset;
}

CpuPlace cpu_place() {
  CpuPlace place;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::getline(boot, place.machine);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
    place.cpuset = cpu_list(set);
    place.cores = CPU_COUNT(&set);
  } else {
    place.cores = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    place.cpuset = fmt::format("0-{}", place.cores - 1);
  }
  place.slurm_cpus = positive_count(env_text("SLURM_CPUS_ON_NODE"));
  return place;
}

LauncherCount launcher_local_ranks() {
  if (int n = positive_count(env_text("OMPI_COMM_WORLD_LOCAL_SIZE")); n > 0) {
    return {n, "OMPI_COMM_WORLD_LOCAL_SIZE"};
  }
  const std::string per_node = env_text("SLURM_STEP_TASKS_PER_NODE");
  const std::string node = env_text("SLURM_NODEID");
  if (!per_node.empty() && !node.empty()) {
    if (int n = tasks_on_node(per_node, std::atoi(node.c_str())); n > 0) {
      return {n, "SLURM_STEP_TASKS_PER_NODE"};
    }
  }
  if (int n = positive_count(env_text("PMIX_LOCAL_SIZE")); n > 0) return {n, "PMIX_LOCAL_SIZE"};
  return {};
}

nlohmann::json ThreadShare::to_json() const {
  return {{"threads", threads},
          {"source", source},
          {"cores", cores},
          {"cores_from", cores_from},
          {"cpuset", cpuset},
          {"ranks_sharing", ranks_sharing},
          {"launcher_local_ranks", launcher.ranks},
          {"launcher_source", launcher.source}};
}

ThreadShare ThreadShare::from_json(const nlohmann::json& j) {
  ThreadShare s;
  s.threads = j.value("threads", 1);
  s.source = j.value("source", "");
  s.cores = j.value("cores", 1);
  s.cores_from = j.value("cores_from", "cpuset");
  s.cpuset = j.value("cpuset", "");
  s.ranks_sharing = j.value("ranks_sharing", 1);
  s.launcher = {j.value("launcher_local_ranks", 0), j.value("launcher_source", "")};
  return s;
}

std::string ThreadShare::text() const {
  std::string out = fmt::format("{} thread{}", threads, threads == 1 ? "" : "s");
  out += source == "option"
             ? " (--threads)"
             : fmt::format(": {} rank{} share{} {} core{} ({}cpuset {}) of one machine",
                           ranks_sharing, ranks_sharing == 1 ? "" : "s",
                           ranks_sharing == 1 ? "s" : "", cores, cores == 1 ? "" : "s",
                           cores_from == "cpuset" ? "" : cores_from + " of ", cpuset);
  if (!launcher.source.empty() && launcher.ranks != ranks_sharing) {
    out += fmt::format("; {} says {} rank{} per node", launcher.source, launcher.ranks,
                       launcher.ranks == 1 ? "" : "s");
  }
  return out;
}

ThreadShare share_threads(int asked, const CpuPlace& mine, const std::vector<std::string>& places,
                          const LauncherCount& launcher) {
  ThreadShare s;
  s.cpuset = mine.cpuset;
  const bool capped = mine.slurm_cpus > 0 && mine.slurm_cpus < mine.cores;
  s.cores = capped ? mine.slurm_cpus : mine.cores;
  s.cores_from = capped ? "SLURM_CPUS_ON_NODE" : "cpuset";
  const std::string key = mine.key();
  s.ranks_sharing = std::max(1, static_cast<int>(std::count(places.begin(), places.end(), key)));
  s.launcher = launcher;
  s.source = asked > 0 ? "option" : "shared";
  s.threads = asked > 0 ? asked : std::max(1, s.cores / s.ranks_sharing);
  return s;
}

}  // namespace dtbench
