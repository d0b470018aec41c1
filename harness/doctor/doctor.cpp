#include "doctor/doctor.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "catalogue/datasets.h"
#include "cluster/cluster.h"
#include "common/error.h"
#include "common/files.h"
#include "common/git_commit.h"
#include "common/host.h"
#include "common/links.h"
#include "common/process.h"
#include "common/text.h"
#include "stats/stats.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

double median(const std::vector<double>& v) {
  return percentile(v, 50);
}

// A scratch directory removed when it goes out of scope.
class Scratch {
 public:
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "dtbench-doctor-XXXXXX").string();
    require(mkdtemp(pattern.data()) != nullptr, "cannot create a scratch directory in /tmp");
    path_ = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct ProbeRun {
  bool ok = false;
  std::string answer;                // rank 0's JSON, checked when ok
  std::string why;                   // what went wrong, one line
  int last_a = -1, last_b = -1;      // the last pair the probes announced ("measuring 1 <-> 3")
  std::vector<BlockedPort> blocked;  // each connection the probes could not open
};

}  // namespace

std::string telling_line(const std::string& text) {
  std::istringstream in(text);
  std::string warning;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of("- \t*") == std::string::npos) continue;
    if (line.rfind("dtbench-probe: measuring", 0) == 0) continue;
    if (line.rfind("dtbench-probe: blocked", 0) == 0) continue;
    if (line.find(": Warning: ") == std::string::npos) return line;
    if (warning.empty()) warning = line;
  }
  return warning;
}

namespace {

// dtbench-probe on `ranks` hosts with `what` among its options (--link-mb, --compute).
ProbeRun run_probe(const HostsFile& hosts, int ranks, const CommandSettings& settings,
                   const DoctorOptions& options, const std::vector<std::string>& what,
                   const std::string& dir) {
  ProcessSpec spec;
  spec.argv = launch_argv(ranks, hosts, settings, ranks > 1 ? 1 : 0);
  spec.argv.insert(spec.argv.end(),
                   {settings.bin_dir + "/dtbench-probe", "--data-dir", settings.data_dir});
  spec.argv.insert(spec.argv.end(), what.begin(), what.end());
  spec.env = launch_env(hosts, settings);
  spec.stdout_path = dir + "/stdout";
  spec.stderr_path = dir + "/stderr";
  spec.timeout_s = options.timeout_s;
  const ProcessOutcome outcome = run_process(spec);
  ProbeRun run;
  const std::string out = read_text_file(spec.stdout_path);
  const std::string err = read_text_file(spec.stderr_path);
  std::istringstream lines(err);
  const std::string announced = "dtbench-probe: measuring ";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(announced, 0) == 0) {
      std::sscanf(line.c_str() + announced.size(), "%d <-> %d", &run.last_a, &run.last_b);
    }
    if (auto b = parse_blocked_line(line)) run.blocked.push_back(*b);
  }
  run.answer = last_line(out);
  const auto answer = nlohmann::json::parse(run.answer, nullptr, /*allow_exceptions=*/false);
  run.ok = outcome.exit_code == 0 && answer.is_object() && answer.contains("hosts") &&
           answer.contains("links");
  if (!run.ok) {
    const std::string said = telling_line(err + "\n" + out);
    run.why = outcome.timed_out
                  ? fmt::format("no answer in {:.0f} s", options.timeout_s)
                  : fmt::format("exit {}{}", outcome.exit_code, said.empty() ? "" : ": " + said);
  }
  return run;
}

// The rate the hosts file's cluster states for its links, as TCP payload (0: none stated).
StatedRate stated_by(const HostsFile& hosts) {
  if (!hosts.emulated) return stated_rate(std::nullopt, hosts.link_rate);
  return stated_rate(current_cluster(hosts.netns_prefix), "");
}

}  // namespace

HostIdentity HostIdentity::from_json(const nlohmann::json& j) {
  HostIdentity h;
  h.host = j.value("host", "");
  h.commit = j.value("commit", "");
  h.data = j.value("data", std::map<std::string, std::string>{});
  return h;
}

nlohmann::json host_identity(const std::string& data_dir) {
  nlohmann::json data = nlohmann::json::object();
  for (const auto& dataset : dataset_registry()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(data_dir) / dataset.dir, ec)) {
      if (!entry.is_regular_file()) continue;
      data[dataset.dir + "/" + entry.path().filename().string()] =
          sha256_of_file(entry.path().string());
    }
  }
  return {{"host", host_name()}, {"commit", git_commit()}, {"data", data}};
}

std::vector<Finding> judge_hosts(const HostIdentity& here, const std::vector<std::string>& names,
                                 const std::vector<HostIdentity>& hosts) {
  std::vector<Finding> out;
  if (hosts.empty()) return out;  // none answered: nothing to compare
  bool builds_alike = true, data_alike = true;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const HostIdentity& h = hosts[i];
    if (h.commit != here.commit) {
      builds_alike = false;
      out.push_back({"FAIL", fmt::format("build: {} runs dtbench {}, this machine {}: build the "
                                         "same commit there (a -dirty build is not the same)",
                                         names[i], h.commit, here.commit)});
    }
    for (const auto& [file, sum] : here.data) {
      auto it = h.data.find(file);
      if (it != h.data.end() && it->second == sum) continue;
      data_alike = false;
      out.push_back({"FAIL", fmt::format("data: {}: {} {}: copy the data directory there", names[i],
                                         file, it == h.data.end() ? "is missing" : "differs")});
      break;  // one line per host
    }
  }
  if (builds_alike) {
    out.push_back({"PASS", fmt::format("build: the {} hosts that answered run dtbench {}, as here",
                                       hosts.size(), here.commit)});
  }
  if (here.data.empty()) {
    // Nothing to compare with: the data directory here holds no dataset (make data, DATA_DIR).
    out.push_back({"FAIL",
                   "data: this machine has no dataset file in its data directory: "
                   "make data, or set DATA_DIR (--data-dir) to where the datasets are"});
  } else if (data_alike) {
    out.push_back({"PASS", fmt::format("data: the {} hosts that answered have the {} dataset files "
                                       "this machine has",
                                       hosts.size(), here.data.size())});
  }
  return out;
}

std::vector<Finding> judge_links(const std::vector<std::string>& names,
                                 const std::vector<MeasuredLink>& links, double stated,
                                 const std::string& stated_what) {
  if (links.empty()) return {{"PASS", "links: one host, none to measure"}};
  const SlowHosts slow = slow_hosts(static_cast<int>(names.size()), links, stated);
  const double reference = slow.reference;
  const std::string ref = fmt::format("{}, {}", mb_per_s(reference), stated_what);
  std::vector<Finding> out;
  if (slow.all()) {
    std::vector<double> all(links.size());
    std::transform(links.begin(), links.end(), all.begin(),
                   [](const MeasuredLink& l) { return l.bytes_per_s; });
    out.push_back({"WARN", fmt::format("links: every host's links are slow: median {}, {:.0f}% of "
                                       "{}",
                                       mb_per_s(median(all)), 100 * median(all) / reference, ref)});
    return out;
  }
  const auto is_slow_host = [&slow](int h) {
    return std::find(slow.slow.begin(), slow.slow.end(), h) != slow.slow.end();
  };
  for (int h : slow.slow) {
    const double share = slow.host_share[static_cast<size_t>(h)];
    out.push_back({"WARN", fmt::format("links: {} is slow: its links at {} at most, {:.0f}% of "
                                       "{}; the other hosts' {:.0f}%",
                                       names[static_cast<size_t>(h)], mb_per_s(share * reference),
                                       100 * share, ref, 100 * slow.others_share())});
  }
  for (const auto& l : links) {
    if (!is_slow(l.bytes_per_s, reference) || is_slow_host(l.a) || is_slow_host(l.b)) continue;
    out.push_back(
        {"WARN", fmt::format("links: {} -> {} at {}, {:.0f}% of {}", names[l.a], names[l.b],
                             mb_per_s(l.bytes_per_s), 100 * l.bytes_per_s / reference, ref)});
  }
  if (out.empty()) {
    double slowest = reference;
    for (const auto& l : links) slowest = std::min(slowest, l.bytes_per_s);
    out.push_back({"PASS", fmt::format("links: {} directions between {} hosts, the slowest at {} "
                                       "({:.0f}% of {})",
                                       links.size(), names.size(), mb_per_s(slowest),
                                       100 * slowest / reference, ref)});
  }
  return out;
}

std::optional<BlockedPort> parse_blocked_line(const std::string& line) {
  static const std::regex form(R"(^dtbench-probe: blocked: (\d+) -> (\d+) \((\S+)\): (.*)$)");
  std::smatch m;
  if (!std::regex_match(line, m, form)) return std::nullopt;
  return BlockedPort{std::stoi(m[1]), std::stoi(m[2]), m[3], m[4]};
}

std::vector<Finding> judge_ports(const std::vector<std::string>& names,
                                 const std::vector<BlockedPort>& blocked) {
  if (blocked.empty()) {
    return {{"PASS", fmt::format("ports: each of the {} hosts accepts TCP connections from every "
                                 "other on a port the kernel picks, at the address Gloo uses",
                                 names.size())}};
  }
  constexpr size_t kShown = 6;
  std::vector<Finding> out;
  for (size_t i = 0; i < blocked.size() && i < kShown; ++i) {
    const BlockedPort& b = blocked[i];
    out.push_back({"FAIL", fmt::format("ports: {} cannot connect to {} at {}: {}: open TCP between "
                                       "every pair of hosts (Gloo and MPI listen on ports the "
                                       "kernel picks)",
                                       names.at(b.from), names.at(b.to), b.endpoint, b.why)});
  }
  if (blocked.size() > kShown) {
    out.push_back(
        {"FAIL", fmt::format("ports: {} more connections blocked", blocked.size() - kShown)});
  }
  return out;
}

namespace {

// Runs dtbench-probe on host i alone (in a directory under scratch): its identity in *identity,
// or the FAIL that names it.
Finding reach_host(const HostsFile& hosts, size_t i, const CommandSettings& settings,
                   const DoctorOptions& options, const std::string& scratch,
                   HostIdentity* identity) {
  const std::string dir = fmt::format("{}/host-{}", scratch, i);
  fs::create_directories(dir);
  HostsFile one = hosts;
  one.hosts = {{hosts.hosts[i].name, 1}};
  one.path = dir + "/hosts";
  write_file_atomically(one.path, hosts.hosts[i].name + " slots=1\n");
  const ProbeRun run = run_probe(one, 1, settings, options, {}, dir);
  if (run.ok) {
    *identity = HostIdentity::from_json(nlohmann::json::parse(run.answer)["hosts"].at(0));
    return {};
  }
  const std::string& name = hosts.hosts[i].name;
  const std::string check = settings.launcher == "srun"
                                ? fmt::format("check that {} is up in the allocation (sinfo)", name)
                                : fmt::format("check that `ssh {}` logs in without a prompt", name);
  return {"FAIL", fmt::format("reach: {}: {} could not run dtbench-probe there ({}): {} and that "
                              "{} exists there",
                              name, settings.launcher, run.why, check,
                              settings.bin_dir + "/dtbench-probe")};
}

// The compute probe on every host at once, under the experiments' launcher and, inside a Slurm
// allocation, under mpirun too (the path the experiments' numbers are held to).
std::vector<Finding> examine_compute(const HostsFile& hosts, const std::vector<std::string>& names,
                                     const CommandSettings& settings, const DoctorOptions& options,
                                     const std::string& scratch) {
  std::vector<std::string> launchers = {settings.launcher};
  if (settings.launcher == "srun") launchers.push_back("mpirun");
  std::vector<std::pair<std::string, std::vector<ComputeSample>>> runs;
  for (const auto& launcher : launchers) {
    CommandSettings s = settings;
    s.launcher = launcher;
    const std::string dir = scratch + "/compute-" + launcher;
    fs::create_directories(dir);
    const ProbeRun run =
        run_probe(hosts, static_cast<int>(hosts.hosts.size()), s, options, {"--compute"}, dir);
    if (!run.ok) {
      return {{"FAIL", fmt::format("compute: the probe under {} failed ({})", launcher, run.why)}};
    }
    std::vector<ComputeSample> samples;
    const nlohmann::json answer = nlohmann::json::parse(run.answer);
    for (const auto& c : answer["compute"]) {
      samples.push_back({ThreadShare::from_json(c["threads"]), c["compute_s"].get<double>()});
    }
    runs.emplace_back(launcher, std::move(samples));
  }
  return judge_compute(names, runs);
}

}  // namespace

std::map<size_t, std::string> unreachable_hosts(const HostsFile& hosts,
                                                const std::vector<size_t>& which,
                                                const CommandSettings& settings, double timeout_s) {
  const Scratch scratch;
  DoctorOptions options;
  options.timeout_s = timeout_s;
  std::map<size_t, std::string> out;
  for (size_t i : which) {
    HostIdentity identity;
    Finding failure = reach_host(hosts, i, settings, options, scratch.path(), &identity);
    if (!failure.text.empty()) out[i] = failure.text;
  }
  return out;
}

std::vector<Finding> examine_hosts(const HostsFile& hosts, const CommandSettings& settings,
                                   const DoctorOptions& options) {
  const Scratch scratch;
  std::vector<Finding> out;
  std::vector<std::string> names;
  std::vector<HostIdentity> answers;
  for (size_t i = 0; i < hosts.hosts.size(); ++i) {
    HostIdentity identity;
    Finding failure = reach_host(hosts, i, settings, options, scratch.path(), &identity);
    if (!failure.text.empty()) {
      out.push_back(std::move(failure));
      continue;
    }
    names.push_back(hosts.hosts[i].name);
    answers.push_back(std::move(identity));
  }
  if (names.size() == hosts.hosts.size()) {
    out.push_back(
        {"PASS", fmt::format("reach: {} ran dtbench-probe on all {} hosts{}", settings.launcher,
                             names.size(), hosts.ssh ? " (over ssh)" : "")});
  }
  const HostIdentity here = HostIdentity::from_json(host_identity(settings.data_dir));
  for (auto& f : judge_hosts(here, names, answers)) out.push_back(std::move(f));
  if (options.link_mb <= 0 || names.size() != hosts.hosts.size()) return out;
  const int n = static_cast<int>(hosts.hosts.size());
  std::vector<MeasuredLink> links;
  if (n > 1) {
    const std::string dir = scratch.path() + "/links";
    fs::create_directories(dir);
    const ProbeRun run = run_probe(hosts, n, settings, options,
                                   {"--link-mb", fmt::format("{}", options.link_mb), "--repeats",
                                    std::to_string(options.repeats)},
                                   dir);
    for (auto& f : judge_ports(names, run.blocked)) out.push_back(std::move(f));
    if (!run.blocked.empty()) return out;  // the links were not measured
    if (!run.ok) {
      out.push_back(
          {"FAIL",
           fmt::format("links: the measurement between the hosts failed ({}){}: a port "
                       "blocked between two hosts, or a firewall",
                       run.why,
                       run.last_a < 0 ? ""
                                      : fmt::format(", last between {} and {}",
                                                    names.at(run.last_a), names.at(run.last_b)))});
      return out;
    }
    const nlohmann::json answer = nlohmann::json::parse(run.answer);
    for (const auto& l : answer["links"]) {
      links.push_back({l["from"].get<int>(), l["to"].get<int>(), l["bytes_per_s"].get<double>()});
    }
  }
  const StatedRate stated = stated_by(hosts);
  for (auto& f : judge_links(names, links, stated.link_bytes_per_s,
                             stated.source.empty() ? "the fastest link seen" : stated.source)) {
    out.push_back(std::move(f));
  }
  for (auto& f : examine_compute(hosts, names, settings, options, scratch.path())) {
    out.push_back(std::move(f));
  }
  return out;
}

bool all_pass(const std::vector<Finding>& findings) {
  return std::none_of(findings.begin(), findings.end(),
                      [](const Finding& f) { return f.verdict == "FAIL"; });
}

}  // namespace dtbench
