#include "runner.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cluster.h"
#include "common/error.h"
#include "common/files.h"
#include "common/host.h"
#include "experiment_command.h"
#include "hosts_file.h"
#include "matrix.h"
#include "models/models.h"
#include "process.h"
#include "progress.h"
#include "run_system.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

std::string now_utc() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

std::string tail_of(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string text;
  for (const auto& l : last) text += l + "\n";
  return text;
}

nlohmann::json read_status(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() && j.contains("status") ? j : nlohmann::json(nullptr);
}

// The datasets the matrix's training experiments read must be in data_dir before anything runs.
void check_datasets(const Matrix& m, const std::string& data_dir) {
  std::set<std::string> needed;
  for (const auto& e : m.experiments) {
    if (e.kind != "train") continue;
    const ModelSpec& model = find_model(e.params.value("model", "vgg11"));
    needed.insert(e.params.value("dataset", model.default_dataset));
  }
  for (const auto& d : needed) {
    std::string sub = d == "cifar10" ? "cifar-10-batches-bin" : d;
    require(fs::is_directory(fs::path(data_dir) / sub),
            fmt::format("no {} in {} ({}/ missing): run `make data` or set DATA_DIR", d, data_dir,
                        sub));
  }
}

// What every experiment's command line is built from (the dry run prints the same).
CommandSettings command_settings(const RunOptions& o) {
  CommandSettings s;
  s.bin_dir = o.bin_dir;
  s.netns_agent = o.netns_agent;
  s.data_dir = fs::absolute(o.data_dir).string();
  s.cores = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  return s;
}

// The hosts file, with its path made absolute for mpirun (which may run elsewhere).
HostsFile read_hosts_absolute(const std::string& path) {
  HostsFile hosts = read_hosts_file(path);
  hosts.path = fs::absolute(path).string();
  return hosts;
}

class Runner {
 public:
  Runner(const RunOptions& o, Matrix m, HostsFile h)
      : o_(o), matrix_(std::move(m)), hosts_(std::move(h)), settings_(command_settings(o)) {}

  int run() {
    nlohmann::json status = nullptr;
    if (hosts_.emulated) {
      cluster_ = current_cluster(hosts_.netns_prefix);
      status = cluster_status(hosts_.netns_prefix);
    }
    fs::create_directories(o_.out_dir);
    write_run_json();
    write_file_atomically(o_.out_dir + "/system.json",
                          describe_run_system(hosts_, o_.data_dir, status).dump(2) + "\n");
    std::vector<double> estimates;
    for (const auto& e : matrix_.experiments) estimates.push_back(e.estimate_s);
    Progress progress(estimates, stdout);
    fmt::print("dtbench run: matrix {} ({} experiments, estimated {}), hosts {}, results in {}\n",
               matrix_.name, matrix_.experiments.size(), format_duration(matrix_.estimate_s()),
               hosts_.path, o_.out_dir);
    std::map<std::string, int> count;
    for (size_t i = 0; i < matrix_.experiments.size() && !interrupted(); ++i) {
      progress.start(i, matrix_.experiments[i].name);
      ++count[run_one(matrix_.experiments[i], progress)];
    }
    if (interrupted()) {
      fmt::print("dtbench run: interrupted; finished results are kept, rerun to resume\n");
      return 130;
    }
    int failed = count["failed"] + count["timeout"];
    fmt::print(
        "dtbench run: {} results ({} from earlier runs), {} failed or timed out, {} skipped "
        "(they need the emulated cluster){}; in {}\n",
        count["ok"] + count["done"], count["done"], failed, count["skipped"],
        count["pending"] > 0 ? fmt::format(", {} not run yet", count["pending"]) : "", o_.out_dir);
    return failed == 0 ? 0 : 1;
  }

 private:
  void write_run_json() {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : matrix_.experiments) {
      nlohmann::json j = e.to_json();
      j["dir"] = "experiments/" + e.dir();
      list.push_back(j);
    }
    nlohmann::json hosts = nlohmann::json::array();
    for (const auto& h : hosts_.hosts) hosts.push_back({{"name", h.name}, {"slots", h.slots}});
    nlohmann::json run = {{"schema", "dtbench.results/1"},
                          {"matrix", matrix_.name},
                          {"matrix_file", matrix_.path},
                          {"description", matrix_.description},
                          {"hosts_file", hosts_.path},
                          {"hosts", hosts},
                          {"emulated_cluster", hosts_.emulated},
                          {"updated_at", now_utc()},
                          {"experiments", list}};
    write_file_atomically(o_.out_dir + "/run.json", run.dump(2) + "\n");
  }

  // Runs (or skips) one experiment and returns its status.
  std::string run_one(const Experiment& e, Progress& progress) {
    fs::path dir = fs::path(o_.out_dir) / "experiments" / e.dir();
    fs::path status_path = dir / "status.json";
    nlohmann::json previous = read_status(status_path);
    std::string before = previous.is_null() ? "" : previous["status"].get<std::string>();
    bool finished = before == "ok" && fs::exists(dir / "result.json");
    bool failed = before == "failed" || before == "timeout" || before == "skipped";
    if (finished || (failed && !o_.retry_failed) || (o_.retry_failed && !failed)) {
      std::string shown = finished ? "done" : failed ? before : "pending";
      progress.finish(shown, previous.is_null() ? 0.0 : previous.value("elapsed_s", 0.0), false);
      return shown;
    }
    fs::create_directories(dir);
    nlohmann::json record = {
        {"schema", "dtbench.experiment/1"}, {"experiment", e.to_json()}, {"started_at", now_utc()}};
    if (!e.network.empty() && !hosts_.emulated) {
      record["status"] = "skipped";
      record["reason"] = "a network profile needs the emulated cluster (hosts/netns-4)";
      write_file_atomically(status_path.string(), record.dump(2) + "\n");
      progress.finish("skipped", 0, false);
      return "skipped";
    }
    std::string partial = (dir / "result.json.partial").string();
    std::error_code ec;
    fs::remove(partial, ec);
    fs::remove(dir / "result.json", ec);
    ProcessSpec spec;
    spec.argv = experiment_argv(e, hosts_, settings_, partial);
    spec.env = experiment_env(hosts_);
    spec.stdout_path = (dir / "stdout.log").string();
    spec.stderr_path = (dir / "stderr.log").string();
    spec.timeout_s = e.timeout_s;
    spec.tick = [&](double s) { progress.tick(s); };
    if (!e.network.empty()) record["network"] = shape_cluster(cluster_, e.network);
    ProcessOutcome outcome;
    try {
      outcome = run_process(spec);
    } catch (...) {
      if (!e.network.empty()) shape_cluster(cluster_, NetworkProfile{});
      throw;
    }
    if (!e.network.empty()) shape_cluster(cluster_, NetworkProfile{});
    if (outcome.interrupted) {
      fs::remove(partial, ec);
      progress.finish("stopped", outcome.elapsed_s, false);
      return "interrupted";
    }
    std::string status = outcome.timed_out                               ? "timeout"
                         : outcome.exit_code == 0 && fs::exists(partial) ? "ok"
                                                                         : "failed";
    if (status == "ok") fs::rename(partial, dir / "result.json");
    record["status"] = status;
    record["exit_code"] = outcome.exit_code;
    record["elapsed_s"] = outcome.elapsed_s;
    record["argv"] = spec.argv;
    if (status != "ok") record["stderr_tail"] = tail_of(spec.stderr_path, 20);
    write_file_atomically(status_path.string(), record.dump(2) + "\n");
    progress.finish(status, outcome.elapsed_s, true);
    return status;
  }

  RunOptions o_;
  Matrix matrix_;
  HostsFile hosts_;
  CommandSettings settings_;
  ClusterSpec cluster_;
};

}  // namespace

int run_matrix(const RunOptions& options) {
  RunOptions o = options;
  HostsFile hosts = read_hosts_absolute(o.hosts_path);
  Matrix matrix = load_matrix(o.matrix, o.matrices_dir);
  check_matrix_fits(matrix, hosts);
  if (o.out_dir.empty()) {
    o.out_dir = fmt::format("results/{}-{}-{}", matrix.name,
                            fs::path(o.hosts_path).filename().string(), host_name());
  }
  o.out_dir = fs::absolute(o.out_dir).lexically_normal().string();
  if (o.dry_run) {
    CommandSettings s = command_settings(o);
    for (size_t i = 0; i < matrix.experiments.size(); ++i) {
      const Experiment& e = matrix.experiments[i];
      fmt::print("[{}/{}] {} (estimate {}, timeout {})\n    {}\n", i + 1, matrix.experiments.size(),
                 e.name, format_duration(e.estimate_s), format_duration(e.timeout_s),
                 fmt::join(experiment_argv(e, hosts, s,
                                           o.out_dir + "/experiments/" + e.dir() + "/result.json"),
                           " "));
    }
    fmt::print("matrix {}: {} experiments, estimated {} in all, results would go to {}\n",
               matrix.name, matrix.experiments.size(), format_duration(matrix.estimate_s()),
               o.out_dir);
    return 0;
  }
  check_datasets(matrix, o.data_dir);
  catch_interrupts();
  return Runner(o, std::move(matrix), std::move(hosts)).run();
}

int launch(const RunOptions& options, int ranks, const std::vector<std::string>& command) {
  HostsFile hosts = read_hosts_absolute(options.hosts_path);
  require(
      ranks >= 1 && ranks <= hosts.total_slots(),
      fmt::format("--ranks {}: {} has {} slots", ranks, options.hosts_path, hosts.total_slots()));
  if (hosts.emulated) current_cluster(hosts.netns_prefix);  // one line if it is not up
  ProcessSpec spec;
  spec.argv = mpirun_argv(ranks, hosts, command_settings(options));
  spec.argv.insert(spec.argv.end(), command.begin(), command.end());
  spec.env = experiment_env(hosts);
  catch_interrupts();
  return run_process(spec).exit_code;
}

}  // namespace dtbench
