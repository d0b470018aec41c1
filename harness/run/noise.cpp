#include "run/noise.h"

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/files.h"
#include "common/machine_cpu.h"

namespace dtbench {
namespace {

constexpr unsigned long kKernelThread = 0x00200000;  // PF_KTHREAD in /proc/PID/stat's flags

double uptime_s() {
  std::ifstream in("/proc/uptime");
  double up = 0;
  in >> up;
  return up;
}

struct ProcessCpu {
  pid_t pid = 0, ppid = 0, group = 0;
  bool kernel = false;
  unsigned long long start_ticks = 0;
  double cpu_s = 0;  // utime + stime
  std::string comm;
};

// /proc/PID/stat: "pid (comm) state ppid pgrp ... flags ... utime stime ... starttime ...";
// comm may hold spaces and parentheses, so fields are counted from the last ')'.
bool read_process(pid_t pid, ProcessCpu* p) {
  const std::optional<std::string> read = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  if (!read) return false;  // it ended
  const std::string& text = *read;
  auto open = text.find('(');
  auto close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  p->comm = text.substr(open + 1, close - open - 1);
  std::istringstream fields(text.substr(close + 2));
  std::vector<std::string> f;
  for (std::string word; fields >> word && f.size() < 20;) f.push_back(word);
  if (f.size() < 20) return false;
  p->pid = pid;
  p->ppid = std::atoi(f[1].c_str());
  p->group = std::atoi(f[2].c_str());
  p->kernel = (std::stoul(f[6]) & kKernelThread) != 0;
  p->cpu_s = (std::stod(f[11]) + std::stod(f[12])) / clock_ticks_per_s();
  p->start_ticks = std::stoull(f[19]);
  return true;
}

std::vector<ProcessCpu> read_processes() {
  std::vector<ProcessCpu> all;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return all;
  while (dirent* entry = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    ProcessCpu p;
    if (*end == '\0' && pid > 0 && read_process(static_cast<pid_t>(pid), &p)) all.push_back(p);
  }
  closedir(proc);
  return all;
}

// Whether /proc/PID/environ holds `entry` ("NAME=value") as one of its variables.
bool environment_holds(pid_t pid, const std::string& entry) {
  const std::optional<std::string> environment =
      read_proc_file("/proc/" + std::to_string(pid) + "/environ");
  if (!environment) return false;  // it ended
  std::istringstream in(*environment);
  for (std::string variable; std::getline(in, variable, '\0');) {
    if (variable == entry) return true;
  }
  return false;
}

}  // namespace

double NoiseReading::foreign_load() const {
  return wall_s > 0 ? foreign_cpu_s / (wall_s * cores) : 0;
}

double NoiseReading::steal() const {
  return wall_s > 0 ? steal_s / (wall_s * cores) : 0;
}

nlohmann::json NoiseReading::to_json() const {
  return {{"wall_s", wall_s},
          {"own_cpu_s", own_cpu_s},
          {"outside_tree_cpu_s", outside_tree_cpu_s},
          {"foreign_cpu_s", foreign_cpu_s},
          {"steal_s", steal_s},
          {"cores", cores},
          {"foreign_load", foreign_load()},
          {"steal", steal()}};
}

bool NoisePolicy::noisy(const NoiseReading& r) const {
  return r.foreign_load() > max_foreign_load || r.steal() > max_steal;
}

NoiseMeter::NoiseMeter(pid_t root, std::string marker) : root_(root), marker_(std::move(marker)) {
  reading_.cores = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  steal0_s_ = read_machine_cpu().steal_s;
  if (root_ > 0) own_.insert(root_);
  began_s_ = uptime_s();
  sample();
}

bool NoiseMeter::marked(pid_t pid, const Seen& now) const {
  if (marker_.empty()) return false;
  auto before = last_.find(pid);
  if (before != last_.end() && before->second.start_ticks == now.start_ticks &&
      before->second.comm == now.comm) {
    return before->second.marked;
  }
  return environment_holds(pid, marker_);
}

void NoiseMeter::sample() {
  const double now_s = uptime_s();
  const bool first = last_.empty();
  std::vector<ProcessCpu> all = read_processes();
  std::map<pid_t, const ProcessCpu*> by_pid;
  for (const auto& p : all) by_pid[p.pid] = &p;
  // Whether p or one of its ancestors is in `set`.
  auto under = [&](const ProcessCpu& p, const std::set<pid_t>& set) {
    if (set.count(p.pid) != 0) return true;
    for (pid_t up = p.ppid, hops = 0; up > 1 && hops < 64; ++hops) {
      if (set.count(up) != 0) return true;
      auto it = by_pid.find(up);
      up = it == by_pid.end() ? 0 : it->second->ppid;
    }
    return false;
  };
  auto in_tree = [&](const ProcessCpu& p) {
    return (root_ > 0 && p.group == root_) || under(p, own_);
  };
  const pid_t self = getpid();
  std::map<pid_t, Seen> seen;
  for (const auto& p : all) {
    if (p.kernel || p.pid == self) continue;
    Seen now{p.start_ticks, p.cpu_s, p.comm, false};
    now.marked = marked(p.pid, now);
    seen[p.pid] = now;
    if (!now.marked || in_tree(p) || outside_.count(p.pid) != 0) continue;
    // A rank that another launcher started, and that launcher's helpers for it: its ancestors
    // started since the experiment began.
    outside_.insert(p.pid);
    for (auto it = by_pid.find(p.ppid); it != by_pid.end() && it->first > 1;
         it = by_pid.find(it->second->ppid)) {
      if (static_cast<double>(it->second->start_ticks) / clock_ticks_per_s() < began_s_) break;
      outside_.insert(it->first);
    }
  }
  for (const auto& p : all) {
    if (p.kernel || p.pid == self) continue;
    // CPU used since the last sample; a process started since then counts whole.
    double used = 0;
    auto before = last_.find(p.pid);
    if (before != last_.end() && before->second.start_ticks == p.start_ticks) {
      used = p.cpu_s - before->second.cpu_s;
    } else if (!first && p.start_ticks / clock_ticks_per_s() >= last_s_) {
      used = p.cpu_s;
    }
    if (in_tree(p)) {
      own_.insert(p.pid);
      reading_.own_cpu_s += used;
    } else if (under(p, outside_)) {
      outside_.insert(p.pid);
      reading_.own_cpu_s += used;
      reading_.outside_tree_cpu_s += used;
    } else {
      reading_.foreign_cpu_s += used;
    }
  }
  last_.swap(seen);
  last_s_ = now_s;
}

NoiseReading NoiseMeter::finish() {
  sample();
  reading_.wall_s = last_s_ - began_s_;
  reading_.steal_s = read_machine_cpu().steal_s - steal0_s_;
  return reading_;
}

double wait_for_quiet(const NoisePolicy& policy, bool* quiet, bool (*stop)()) {
  using clock = std::chrono::steady_clock;
  const auto began = clock::now();
  auto waited = [&] { return std::chrono::duration<double>(clock::now() - began).count(); };
  *quiet = false;
  while (policy.quiet_wait_s > 0 && !stop()) {
    NoiseMeter window;
    for (int i = 0; i < 10 && !stop(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!policy.noisy(window.finish())) {
      *quiet = true;
      break;
    }
    if (waited() >= policy.quiet_wait_s) break;
  }
  return waited();
}

}  // namespace dtbench
