#include "cluster/cluster_slurm.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cluster/node_files.h"
#include "common/error.h"
#include "common/files.h"
#include "common/poll.h"
#include "common/process.h"
#include "common/text.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

std::string slurm_dir(const std::string& prefix) {
  return "/run/dtbench/" + prefix + "slurm";
}

std::string pids_path(const std::string& prefix) {
  return slurm_dir(prefix) + "/pids.json";
}

// ClusterName: lower-case letters and digits.
std::string cluster_name(const std::string& prefix) {
  std::string name;
  for (char c : prefix) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) name += c;
  }
  return name.empty() ? "dtbench" : name;
}

std::string slurm_conf_text(const ClusterSpec& spec, const std::string& dir) {
  std::string text = fmt::format(
      "# The emulated cluster's Slurm (dtbench cluster up --slurm); clients: SLURM_CONF={0}/"
      "slurm.conf\n"
      "ClusterName={1}\n"
      "SlurmctldHost={2}ctl({3}.254)\n"
      "AuthType=auth/munge\n"
      "CredType=cred/munge\n"
      "SlurmUser=root\n"
      "StateSaveLocation={0}/state\n"
      "SlurmctldPidFile={0}/slurmctld.pid\n"
      "SlurmctldLogFile={0}/slurmctld.log\n"
      // Each node's own directories: one machine's /tmp and /var would be shared by all.
      "SlurmdSpoolDir={0}/spool.%n\n"
      "SlurmdPidFile={0}/slurmd.%n.pid\n"
      "SlurmdLogFile={0}/slurmd.%n.log\n"
      "TmpFS={0}/tmp.%n\n"
      // No TaskPlugin or JobAcctGatherType: 22.05's defaults are task/none and
      // jobacct_gather/none, and 24.11 has neither plugin but leaves both unset.
      "ProctrackType=proctrack/linuxproc\n"
      "SelectType=select/cons_tres\n"
      "SelectTypeParameters=CR_CPU\n"
      "SlurmdParameters=config_overrides\n"
      "ReturnToService=2\n"
      "MailProg=/bin/true\n",
      dir, cluster_name(spec.prefix), spec.prefix, spec.subnet);
  for (int i = 0; i < spec.hosts; ++i) {
    text += fmt::format("NodeName={0} NodeHostname={0} NodeAddr={1} CPUs=1\n", spec.namespace_of(i),
                        spec.address_of(i));
  }
  return text +
         fmt::format("PartitionName={}emu Nodes={}n[0-{}] Default=YES MaxTime=INFINITE State=UP\n",
                     spec.prefix, spec.prefix, spec.hosts - 1);
}

// What `slurmd -V` says ("slurm-wlm 22.05.8", "slurm 24.11.5"); "" when it cannot be run.
std::string slurmd_version() {
  std::string out;
  try {
    run_captured({"/usr/sbin/slurmd", "-V"}, &out);
  } catch (const UserError&) {
  }
  return out;
}

bool munge_answers() {
  std::string out;
  try {
    return run_captured({"sh", "-c", "munge -n | unmunge"}, &out) == 0;
  } catch (const UserError&) {
    return false;
  }
}

// Whether pid is a process that has not ended (a zombie has).
bool alive(int pid) {
  const std::optional<std::string> read = read_proc_file(fmt::format("/proc/{}/stat", pid));
  if (!read) return false;
  const std::string& stat = *read;
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

std::map<std::string, std::string> client_env(const std::string& prefix) {
  return {{"SLURM_CONF", slurm_conf(prefix)}};
}

bool all_idle(const ClusterSpec& spec) {
  std::string out;
  if (run_captured({"sinfo", "--noheader", "--Node", "--format=%T"}, &out,
                   client_env(spec.prefix)) != 0) {
    return false;
  }
  const auto states = words_of(out);
  return static_cast<int>(states.size()) == spec.hosts &&
         std::all_of(states.begin(), states.end(), [](const auto& s) { return s == "idle"; });
}

}  // namespace

std::string slurm_conf(const std::string& prefix) {
  return slurm_dir(prefix) + "/slurm.conf";
}

bool slurm_is_set_up(const std::string& prefix) {
  return fs::exists(slurm_conf(prefix));
}

std::string cgroup_conf_text(const std::string& slurmd_version) {
  // ip netns exec mounts a fresh sysfs without the cgroup file system. 23.11 and later can be
  // told to leave cgroups alone; before, version 1 with linuxproc and no task plugin never
  // touches them.
  int major = 0, minor = 0;
  const size_t digit = slurmd_version.find_first_of("0123456789");
  if (digit != std::string::npos) {
    std::sscanf(slurmd_version.c_str() + digit, "%d.%d", &major, &minor);
  }
  const bool can_disable = major > 23 || (major == 23 && minor >= 11);
  return can_disable ? "CgroupPlugin=disabled\n" : "CgroupPlugin=cgroup/v1\n";
}

void start_slurm(const ClusterSpec& spec) {
  for (const char* daemon : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged"}) {
    require(access(daemon, X_OK) == 0,
            fmt::format("the emulated cluster's Slurm needs {}: run `make setup-cluster`", daemon));
  }
  const std::string dir = slurm_dir(spec.prefix);
  if (slurm_is_set_up(spec.prefix) && all_idle(spec)) return;  // already serving
  remove_slurm(spec.prefix);  // what is left of an earlier start: a fresh one, state and all
  fs::create_directories(dir + "/state");
  for (int i = 0; i < spec.hosts; ++i) {
    for (const char* kind : {"spool", "tmp"}) {
      fs::create_directories(fmt::format("{}/{}.{}", dir, kind, spec.namespace_of(i)));
    }
  }
  write_file_atomically(slurm_conf(spec.prefix), slurm_conf_text(spec, dir));
  write_file_atomically(dir + "/cgroup.conf", cgroup_conf_text(slurmd_version()));
  write_node_hosts(spec);
  nlohmann::json pids = nlohmann::json::object();
  if (!munge_answers()) {
    fs::create_directories("/run/munge");
    run_checked({"chown", "munge:munge", "/run/munge"});
    pids["munged"] = start_daemon(
        {"setpriv", "--reuid=munge", "--regid=munge", "--init-groups", "/usr/sbin/munged", "-F"},
        dir + "/munged.log");
    if (!poll_until(munge_answers, 10)) {
      throw RunError("munged does not answer after 10 s: see " + dir + "/munged.log");
    }
  }
  const std::string controller = spec.prefix + "ctl";
  pids["slurmctld"] = start_daemon({"unshare", "--uts", "sh", "-c",
                                    "hostname \"$0\" && exec /usr/sbin/slurmctld -D -c -f \"$1\"",
                                    controller, slurm_conf(spec.prefix)},
                                   dir + "/slurmctld.out");
  write_file_atomically(pids_path(spec.prefix), pids.dump() + "\n");
  for (int i = 0; i < spec.hosts; ++i) {
    const std::string ns = spec.namespace_of(i);
    start_daemon({"ip", "netns", "exec", ns, "unshare", "--uts", "sh", "-c",
                  "hostname \"$0\" && exec /usr/sbin/slurmd -D -N \"$0\" -f \"$1\"", ns,
                  slurm_conf(spec.prefix)},
                 fmt::format("{}/slurmd-{}.out", dir, ns));
  }
  if (!poll_until([&] { return all_idle(spec); }, 30)) {
    throw RunError(
        fmt::format("Slurm's nodes are not all idle after 30 s: see {}/slurmctld.log "
                    "and {}/slurmd.*.log",
                    dir, dir));
  }
}

void remove_slurm(const std::string& prefix) {
  const std::string dir = slurm_dir(prefix);
  std::vector<int> pids;  // the slurmds (by their pid files), slurmctld, our munged
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("slurmd.", 0) == 0 && ends_with(name, ".pid")) {
      pids.push_back(std::atoi(read_text_file(entry.path().string()).c_str()));
    }
  }
  if (fs::exists(pids_path(prefix))) {
    const auto started = nlohmann::json::parse(read_text_file(pids_path(prefix)), nullptr, false);
    for (const char* name : {"slurmctld", "munged"}) {
      if (started.is_object() && started.contains(name)) pids.push_back(started[name].get<int>());
    }
  }
  for (int pid : pids) {
    if (pid > 0) kill(pid, SIGTERM);
  }
  auto ended = [&] {
    return std::none_of(pids.begin(), pids.end(), [](int pid) { return pid > 0 && alive(pid); });
  };
  if (!poll_until(ended, 10)) {
    for (int pid : pids) {
      if (pid > 0) kill(pid, SIGKILL);
    }
  }
  fs::remove_all(dir, ec);
}

}  // namespace dtbench
