#include "run/experiment_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "cluster/cluster_ssh.h"
#include "common/allocator.h"
#include "common/environment.h"
#include "run/noise.h"

namespace dtbench {
namespace {

// The experiment's parameters as options. Threads are not shared out here: the ranks find which
// of them share cores, whatever launched them (common/thread_share.h).
void add_options(const Experiment& e, std::vector<std::string>* args) {
  auto options = option_args(e.params);
  args->insert(args->end(), options.begin(), options.end());
}

std::vector<std::string> train_args(const Experiment& e, const CommandSettings& s,
                                    const std::string& result_path) {
  std::vector<std::string> args = {s.bin_dir + "/dtbench-train", "--data-dir", s.data_dir, "--out",
                                   result_path};
  if (e.trace) {
    args.insert(
        args.end(),
        {"--trace", (std::filesystem::path(result_path).parent_path() / "trace.json.gz").string()});
  }
  add_options(e, &args);
  return args;
}

// Python has no malloc option: "keep" is glibc's environment variables, as keep_freed_memory()
// sets them (common/allocator.h), so that the record says "environment (...)".
std::vector<std::string> python_ddp_args(const Experiment& e, const HostsFile& hosts,
                                         const CommandSettings& s, const std::string& result_path,
                                         int port) {
  std::vector<std::string> args;
  if (e.params.value("malloc", "glibc") == "keep") {
    args = {"/usr/bin/env", fmt::format("MALLOC_MMAP_THRESHOLD_={}", kKeptMemoryThresholdBytes),
            fmt::format("MALLOC_TRIM_THRESHOLD_={}", kKeptMemoryThresholdBytes)};
  }
  // Rank 0 runs on the first host (mpirun fills hosts in order).
  std::string host = hosts.hosts.at(0).name == "localhost" ? "127.0.0.1" : hosts.hosts[0].name;
  args.insert(args.end(), {s.python, s.python_ddp, "--data-dir", s.data_dir, "--out", result_path,
                           "--master", fmt::format("{}:{}", host, port)});
  Experiment options = e;
  options.params.erase("malloc");
  add_options(options, &args);
  return args;
}

std::vector<std::string> collectives_args(const Experiment& e, const HostsFile& hosts,
                                          const CommandSettings& s,
                                          const std::string& result_path) {
  std::vector<std::string> args = {s.bin_dir + "/bench_collectives", "--hosts", hosts.path,
                                   "--benchmark_out=" + result_path, "--benchmark_out_format=json"};
  const auto& p = e.params;
  if (p.contains("backend")) args.insert(args.end(), {"--backend", p["backend"]});
  if (p.contains("filter")) args.push_back("--benchmark_filter=" + p["filter"].get<std::string>());
  if (p.contains("repetitions")) {
    args.push_back(fmt::format("--benchmark_repetitions={}", p["repetitions"].get<int>()));
  }
  if (p.contains("rest_ms"))
    args.push_back(fmt::format("--rest-ms={}", p["rest_ms"].get<double>()));
  if (p.contains("size_seconds"))
    args.push_back(fmt::format("--size-seconds={}", p["size_seconds"].get<double>()));
  return args;
}

}  // namespace

namespace {

// srun in the allocation: the hosts file's first hosts that hold `ranks`, filled in order as
// mpirun fills them; PMIx joins the tasks in one MPI world.
std::vector<std::string> srun_argv(int ranks, const HostsFile& hosts, int ranks_per_host) {
  std::vector<std::string> nodes;
  for (size_t i : hosts_for(ranks, hosts, ranks_per_host)) nodes.push_back(hosts.hosts[i].name);
  std::vector<std::string> argv = {"srun",
                                   "--mpi=pmix",
                                   fmt::format("--ntasks={}", ranks),
                                   fmt::format("--nodes={}", nodes.size()),
                                   fmt::format("--nodelist={}", fmt::join(nodes, ",")),
                                   "--distribution=block",
                                   "--kill-on-bad-exit=1",
                                   "--overlap",
                                   "--export=ALL"};
  if (ranks_per_host > 0) argv.push_back(fmt::format("--ntasks-per-node={}", ranks_per_host));
  return argv;
}

}  // namespace

std::vector<size_t> hosts_for(int ranks, const HostsFile& hosts, int ranks_per_host) {
  std::vector<size_t> used;
  for (int held = 0; held < ranks && used.size() < hosts.hosts.size();) {
    const HostEntry& h = hosts.hosts[used.size()];
    held += ranks_per_host > 0 ? ranks_per_host : h.slots;
    used.push_back(used.size());
  }
  return used;
}

namespace {

// The OpenMPI dtbench was built against (CMake's FindMPI): 4 on Debian 12, 5 on Debian 13.
constexpr int kOpenMpiMajor = DTBENCH_OPENMPI_MAJOR;

// The MCA parameters every launch on these hosts takes, whichever launcher starts the ranks:
// mpirun passes them as --mca, srun as OMPI_MCA_* in the ranks' environment. Without the first,
// ranks on shared cores busy-poll (docs/harness.md).
std::vector<std::pair<std::string, std::string>> launch_mca(const HostsFile& hosts) {
  std::vector<std::pair<std::string, std::string>> mca = {{"mpi_yield_when_idle", "1"}};
  const bool one_machine = std::all_of(
      hosts.hosts.begin(), hosts.hosts.end(),
      [](const HostEntry& h) { return h.name == "localhost" || h.name.rfind("127.", 0) == 0; });
  // Ranks on one machine talk through shared memory; OpenMPI 5's TCP transport would still look
  // for a route between them and warn on every rank when it finds none. (4.1 stays as it was:
  // there the exclusion measured 14.8 s against 13.2 s for the smoke matrix's MPI collectives.)
  if (one_machine && kOpenMpiMajor >= 5) mca.emplace_back("btl", "^tcp");
  if (hosts.emulated) {
    // Each namespace is a host of its own to OpenMPI: no shared memory, TCP on the bridge.
    const std::string subnet = hosts.subnet + ".0/24";
    // OpenMPI 5's launcher (PRRTE) ignores a subnet there, with a warning: it takes names, the
    // namespaces' interface and the bridge mpirun reaches them by.
    const std::string daemons = kOpenMpiMajor >= 5 ? "eth0," + hosts.netns_prefix + "br0" : subnet;
    mca.insert(mca.end(), {{"oob_tcp_if_include", daemons},
                           {"btl_tcp_if_include", subnet},
                           {"pml", "ob1"},
                           {"btl", "tcp,self"}});
  } else {
    // The user's choice of MPI's interfaces (a cluster of several networks: hosts/README.md),
    // given on the command line so that the daemons ssh starts and the record see it.
    for (const char* name : {"btl_tcp_if_include", "oob_tcp_if_include"}) {
      const std::string value = env_text((std::string("OMPI_MCA_") + name).c_str());
      if (!value.empty()) mca.emplace_back(name, value);
    }
  }
  return mca;
}

// The variables every rank needs, with those of the caller (the experiment's marker). Gloo's
// interface is the user's where they set it (a cluster with several networks: hosts/README.md),
// since ssh starts the ranks without the harness's environment; the emulated cluster's is eth0.
// So are oneDNN's kernels (ONEDNN_MAX_CPU_ISA, docs/testing.md): every rank runs the same ones.
std::map<std::string, std::string> rank_variables(const HostsFile& hosts,
                                                  const std::map<std::string, std::string>& more) {
  std::map<std::string, std::string> vars = more;
  if (hosts.emulated) {
    vars["GLOO_SOCKET_IFNAME"] = "eth0";
    vars["DTBENCH_NETNS_PREFIX"] = hosts.netns_prefix;
  } else if (const std::string ifname = env_text("GLOO_SOCKET_IFNAME"); !ifname.empty()) {
    vars["GLOO_SOCKET_IFNAME"] = ifname;
  }
  if (const std::string isa = env_text("ONEDNN_MAX_CPU_ISA"); !isa.empty()) {
    vars["ONEDNN_MAX_CPU_ISA"] = isa;
  }
  return vars;
}

}  // namespace

std::vector<std::string> launch_argv(int ranks, const HostsFile& hosts, const CommandSettings& s,
                                     int ranks_per_host,
                                     const std::map<std::string, std::string>& variables) {
  // srun passes its whole environment on: launch_env puts the settings there.
  if (s.launcher == "srun") return srun_argv(ranks, hosts, ranks_per_host);
  std::vector<std::string> argv = {
      s.mpirun, "-np", std::to_string(ranks), "--hostfile", hosts.path, "--bind-to", "none"};
  for (const auto& [name, value] : launch_mca(hosts))
    argv.insert(argv.end(), {"--mca", name, value});
  if (ranks_per_host > 0) {
    argv.insert(argv.end(), {"--map-by", "ppr:" + std::to_string(ranks_per_host) + ":node"});
  }
  if (hosts.emulated) {
    // Reached by the agent, or by stock ssh with the cluster's client configuration.
    if (hosts.ssh) {
      argv.insert(argv.end(),
                  {"--mca", "plm_rsh_args", "-F " + ssh_client_config(hosts.netns_prefix)});
    } else {
      argv.insert(argv.end(), {"--mca", "plm_rsh_agent", s.netns_agent});
    }
  }
  // Over ssh mpirun passes on only what it is told.
  for (const auto& [name, value] : rank_variables(hosts, variables)) {
    argv.insert(argv.end(), {"-x", name + "=" + value});
  }
  return argv;
}

std::map<std::string, std::string> experiment_marker(const std::string& result_path) {
  // A word without commas or spaces (srun's --export and the shell split on them).
  return {{kExperimentMarker, fmt::format("{:016x}", std::hash<std::string>{}(result_path))}};
}

std::map<std::string, std::string> experiment_variables(const Experiment& e,
                                                        const std::string& result_path) {
  std::map<std::string, std::string> vars = experiment_marker(result_path);
  // The ranks keep a fragment set in their environment (trainers/comm/mpi_communicator.cpp).
  if (e.mpi_fragment > 0) vars[kMpiFragmentVariable] = std::to_string(e.mpi_fragment);
  return vars;
}

std::vector<std::string> experiment_argv(const Experiment& e, const HostsFile& hosts,
                                         const CommandSettings& s, const std::string& result_path,
                                         int port) {
  std::vector<std::string> argv =
      launch_argv(e.ranks, hosts, s, e.ranks_per_host, experiment_variables(e, result_path));
  auto binary = e.kind == "collectives"  ? collectives_args(e, hosts, s, result_path)
                : e.kind == "python_ddp" ? python_ddp_args(e, hosts, s, result_path, port)
                                         : train_args(e, s, result_path);
  argv.insert(argv.end(), binary.begin(), binary.end());
  if (auto fault = s.faults.find(e.group); fault != s.faults.end()) {
    argv.insert(argv.end(), {"--fault", fault->second});
  }
  return argv;
}

std::map<std::string, std::string> launch_env(const HostsFile& hosts, const CommandSettings& s,
                                              const std::map<std::string, std::string>& variables) {
  std::map<std::string, std::string> env;
  if (geteuid() == 0) {
    env = {{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}};
  }
  if (hosts.emulated) env["DTBENCH_NETNS_PREFIX"] = hosts.netns_prefix;  // the agent's
  if (s.launcher == "srun") {
    for (const auto& [name, value] : launch_mca(hosts)) env["OMPI_MCA_" + name] = value;
    for (const auto& [name, value] : rank_variables(hosts, variables)) env[name] = value;
  }
  return env;
}

}  // namespace dtbench
