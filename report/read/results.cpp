#include "report/read/results.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

#include "common/error.h"
#include "common/files.h"
#include "common/network_spec.h"
#include "common/software_stack.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

// A JSON file, gzip-compressed or not.
nlohmann::json read_json(const fs::path& path) {
  std::string text;
  try {
    text = read_text_file(path.string());
  } catch (const UserError&) {
    throw UserError("cannot read it");
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(fmt::format("not valid JSON ({})", first_line(e.what())));
  }
}

// The software stack and the emulated cluster's links are part of the system: results of one
// machine on Debian 12 and on Debian 13, or at 1 Gbit/s and with a bottleneck host, are not
// merged.
std::string label_of(const nlohmann::json& system) {
  std::string hosts = fs::path(system.value("hosts_file", "?")).filename().string();
  std::string label = fmt::format("{}: {} x{}, hosts {}", system.value("hostname", "?"),
                                  system.value("cpu_model", "?"), system.value("cores", 0), hosts);
  const auto spec = recorded_network(system);
  if (system.value("emulated_cluster", false) && spec) {
    label += fmt::format(", links {}", spec->rate);
    if (spec->bottleneck_host >= 0) {
      label += fmt::format(" (host {} at {})", spec->bottleneck_host, spec->bottleneck_rate);
    }
  }
  return label + "; " + stack_label(software_stack(system));
}

// Google Benchmark's JSON from bench_collectives -> rows. Names look like
// "allreduce/backend:mpi/bytes:4194304/ranks:4[/case:vgg11]/iterations:N/manual_time", the
// case naming the model whose gradient (or one of whose tensors) the size is.
std::vector<CollectiveRun> collectives_of(const nlohmann::json& j, const std::string& group) {
  static const std::regex name(
      "([a-z0-9_]+)/backend:([a-z]+)/bytes:([0-9]+)/ranks:([0-9]+)(/case:([a-z0-9]+))?/.*");
  std::vector<CollectiveRun> rows;
  if (!j.contains("benchmarks") || !j["benchmarks"].is_array()) {
    throw UserError("no \"benchmarks\" list (not Google Benchmark JSON)");
  }
  for (const auto& b : j["benchmarks"]) {
    std::smatch m;
    std::string text = b.value("name", "");
    if (!std::regex_match(text, m, name) || m[1] == "osu_allreduce") continue;
    if (b.value("run_type", "iteration") != "iteration") continue;
    if (b.value("wrong", 0.0) != 0) throw UserError(fmt::format("{} has wrong results", text));
    CollectiveRun r;
    r.group = group;
    r.op = m[1];
    r.backend = m[2];
    r.bytes = std::stoll(m[3]);
    r.ranks = std::stoi(m[4]);
    r.model_case = m[6];
    double unit = b.value("time_unit", "ns") == "us"   ? 1e-6
                  : b.value("time_unit", "ns") == "ms" ? 1e-3
                                                       : 1e-9;
    r.time_s = b.at("real_time").get<double>() * unit;
    r.algbw = b.value("algbw", 0.0);
    r.busbw = b.value("busbw", 0.0);
    r.machine_cpu_s = b.value("machine_cpu_s", -1.0);
    r.chained_s = b.value("chained_s", -1.0);
    r.rest_s = b.value("rest_s", 0.0);
    r.machines = static_cast<int>(b.value("machines", 0.0));
    r.hosts = static_cast<int>(b.value("hosts", 0.0));
    rows.push_back(r);
  }
  return rows;
}

Conditions conditions_of(const nlohmann::json& status) {
  Conditions c;
  c.name = status["experiment"].value("name", "?");
  c.repeat = status.value("repeat", 1);
  c.attempts = static_cast<int>(status.value("attempts", nlohmann::json::array()).size());
  c.attempts = std::max(c.attempts, 1);
  c.noisy = status.value("noisy", false);
  if (status.contains("noise")) {
    const auto& n = status["noise"];
    c.foreign_load = n.value("foreign_load", c.foreign_load);
    c.steal = n.value("steal", c.steal);
    c.own_cpu_s = n.value("own_cpu_s", c.own_cpu_s);
    c.wall_s = n.value("wall_s", c.wall_s);
  }
  return c;
}

void load_experiment(const fs::path& dir, SystemResults& s, Results& out) {
  const fs::path status_path = dir / "status.json";
  const fs::path result_path = stored_file(dir.string(), "result.json");
  nlohmann::json status;
  try {
    status = read_json(status_path);
  } catch (const UserError& e) {
    out.warnings.push_back(fmt::format("skipped {}: {}", status_path.string(), e.what()));
    return;
  }
  if (status.value("status", "") != "ok") return;  // failed or skipped: nothing to report
  const nlohmann::json& e = status["experiment"];
  try {
    nlohmann::json result = read_json(result_path);
    Conditions conditions = conditions_of(status);
    if (e.value("kind", "train") == "collectives") {
      for (auto& row : collectives_of(result, e.value("group", ""))) {
        (row.rest_s > 0 ? s.rested : s.collectives).push_back(std::move(row));
      }
      s.conditions.push_back(conditions);
      return;
    }
    TrainRun run;
    run.group = e.at("group");
    run.name = e.at("name");
    run.kind = e.value("kind", "train");
    run.repeat = conditions.repeat;
    run.dir = dir.string();
    run.conditions = conditions;
    run.params = e.value("params", nlohmann::json::object());
    run.ranks = e.value("ranks", 1);
    if (e.contains("network")) {
      run.bottleneck_rate = e["network"].value("bottleneck_rate", "");
      run.bottleneck_host = e["network"].value("bottleneck_host", -1);
    }
    run.record = record_from_json(result);
    if (run.record.iterations.total_s.empty()) throw UserError("no iterations");
    s.runs.push_back(std::move(run));
    s.conditions.push_back(conditions);
  } catch (const std::exception& err) {
    out.warnings.push_back(
        fmt::format("skipped {}: {}", result_path.string(), first_line(err.what())));
  }
}

}  // namespace

namespace {
// "results/a/" -> "a".
std::string directory_name(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}
}  // namespace

std::string TrainRun::trace_file() const {
  if (dir.empty()) return "";
  const fs::path path = stored_file(dir, "trace.json");
  return fs::exists(path) ? path.string() : "";
}

Results load_results(const std::vector<std::string>& dirs, bool each_directory) {
  Results out;
  for (const auto& d : dirs) {
    require(fs::is_directory(d), fmt::format("results directory {} does not exist", d));
    if (!fs::exists(fs::path(d) / "run.json")) {
      // A folder of results directories (results/reference/) is not one: name what is inside.
      std::vector<std::string> inside;
      std::error_code ec;
      for (const auto& f : fs::directory_iterator(d, ec)) {
        if (fs::exists(f.path() / "run.json")) inside.push_back(f.path().string());
      }
      std::sort(inside.begin(), inside.end());
      if (!inside.empty()) {
        throw UserError(
            fmt::format("{} is not a results directory but holds {}: name the ones to "
                        "read, e.g. {}",
                        d, inside.size(), inside.front()));
      }
      throw UserError(fmt::format("{} holds no results (no run.json): run `make bench` first", d));
    }
    nlohmann::json system, run;
    try {
      system = read_json(fs::path(d) / "system.json");
      run = read_json(fs::path(d) / "run.json");
    } catch (const UserError& e) {
      out.warnings.push_back(fmt::format("skipped {}: system.json or run.json: {}", d, e.what()));
      continue;
    }
    std::string label = label_of(system);
    if (each_directory) label += fmt::format(" ({})", directory_name(d));
    auto it = std::find_if(out.systems.begin(), out.systems.end(),
                           [&](const SystemResults& s) { return s.label == label; });
    if (it == out.systems.end()) {
      out.systems.push_back({label, system, {}, {}, {}, {}, {}, {}, {}, {}});
      it = out.systems.end() - 1;
    }
    it->dirs.push_back(d);
    it->matrices.push_back(run.value("matrix", "?"));
    std::vector<fs::path> experiment_dirs;
    std::error_code ec;
    for (const auto& f : fs::recursive_directory_iterator(fs::path(d) / "experiments", ec)) {
      if (f.path().filename() == "status.json") experiment_dirs.push_back(f.path().parent_path());
    }
    std::sort(experiment_dirs.begin(), experiment_dirs.end());
    for (const auto& e : experiment_dirs) load_experiment(e, *it, out);
  }
  const auto finished = [](const SystemResults& s) {
    return s.runs.size() + s.collectives.size() + s.rested.size();
  };
  std::stable_sort(out.systems.begin(), out.systems.end(),
                   [&](const auto& a, const auto& b) { return finished(a) > finished(b); });
  size_t total = 0;
  for (const auto& s : out.systems) total += finished(s);
  require(total > 0, fmt::format("no finished experiments in {} (run `make bench` first)",
                                 fmt::join(dirs, ", ")));
  return out;
}

std::string cpu_kernels_of(const SystemResults& s) {
  std::map<std::string, int> runs;
  for (const auto& r : s.runs) {
    const auto it = r.record.system.find("cpu_kernels");
    const bool known = it != r.record.system.end() && it->is_string();
    ++runs[known ? it->get<std::string>() : "not recorded"];
  }
  if (runs.empty()) return "no training run";
  if (runs.size() == 1) return runs.begin()->first;
  std::vector<std::string> parts;
  parts.reserve(runs.size());
  for (const auto& [kernels, n] : runs) parts.push_back(fmt::format("{} ({} runs)", kernels, n));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace dtbench
