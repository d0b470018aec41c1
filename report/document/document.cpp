#include "report/document/document.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "common/git_commit.h"
#include "common/network_spec.h"
#include "common/process.h"
#include "common/software_stack.h"
#include "report/document/answer.h"
#include "report/document/figures.h"
#include "report/predict/diagnosis.h"
#include "report/read/results.h"
#include "report/read/table.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  require(in.good(), fmt::format("cannot read {}", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void replace(std::string& text, const std::string& key, const std::string& value) {
  auto at = text.find(key);
  require(at != std::string::npos, fmt::format("report template has no {}", key));
  text.replace(at, key.size(), value);
}

std::string text_of(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) return "unknown";
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

// The commits the system's results were built from (system.json's and each run's record), with
// how many runs each made; a build with uncommitted changes is flagged.
std::string commits_of(const SystemResults& s) {
  std::map<std::string, int> runs;
  runs[text_of(s.system, "git_commit")] += 0;
  for (const auto& r : s.runs) {
    if (r.record.system.contains("git_commit")) ++runs[text_of(r.record.system, "git_commit")];
  }
  std::vector<std::string> parts;
  bool dirty = false;
  for (const auto& [commit, n] : runs) {
    dirty = dirty || is_dirty_commit(commit);
    parts.push_back(n > 0 && runs.size() > 1 ? fmt::format("{} ({} runs)", commit, n) : commit);
  }
  std::string text = fmt::format("{}", fmt::join(parts, ", "));
  if (dirty) text += " **(built with uncommitted changes: the code is not in git)**";
  return text;
}

std::string network_of(const nlohmann::json& system) {
  const auto spec = recorded_network(system);
  if (!spec) return "the hosts' own network";
  std::string text = fmt::format("emulated: {} namespaces, links {}", spec->hosts, spec->rate);
  if (spec->bottleneck_host >= 0) {
    text += fmt::format(", host {} at {}", spec->bottleneck_host, spec->bottleneck_rate);
  }
  text += system.at("network").value("delay_emulated", false)
              ? fmt::format(", delay {}", spec->delay)
              : ", no delay (no netem)";
  return text;
}

std::string systems_section(const std::vector<SystemResults>& systems) {
  std::string text;
  for (size_t k = 0; k < systems.size(); ++k) {
    const auto& s = systems[k];
    const auto& j = s.system;
    std::vector<std::string> hosts;
    for (const auto& h : j.value("hosts", nlohmann::json::array())) {
      hosts.push_back(fmt::format("{} ({} slots)", h.value("name", "?"), h.value("slots", 0)));
    }
    const auto stack = software_stack(j);
    text += fmt::format("### S{}: {}\n\n| | |\n|---|---|\n", k + 1, j.value("hostname", "?"));
    auto row = [&](const std::string& key, const std::string& value) {
      text += fmt::format("| {} | {} |\n", key, value);
    };
    row("CPU", fmt::format("{}, {} cores", text_of(j, "cpu_model"), text_of(j, "cores")));
    row("Memory", fmt::format("{:.1f} GiB", j.value("memory_bytes", 0.0) / (1 << 30)));
    row("OS, kernel", fmt::format("{}, {}", text_of(j, "os"), text_of(j, "kernel")));
    row("Compiler", text_of(stack, "compiler"));
    row("libtorch",
        fmt::format("{} (package {})", text_of(j, "libtorch"), text_of(stack, "libtorch")));
    row("CPU kernels", cpu_kernels_of(s));
    row("MPI", text_of(stack, "mpi"));
    row("Gloo", fmt::format("package {}", text_of(stack, "gloo")));
    row("Python DDP's PyTorch", fmt::format("package {}", text_of(stack, "python_torch")));
    if (stack.contains("slurm")) row("Slurm", text_of(stack, "slurm"));
    row("Hosts", fmt::format("{}", fmt::join(hosts, ", ")));
    row("Network", network_of(j));
    row("Git commit", commits_of(s));
    row("Matrices, directories",
        fmt::format("{} in {}", fmt::join(s.matrices, ", "), fmt::join(s.dirs, ", ")));
    row("Results",
        fmt::format(
            "{} training runs, {} collective measurements{}", s.runs.size(), s.collectives.size(),
            s.rested.empty() ? "" : fmt::format(" ({} more after a rest)", s.rested.size())));
    text += "\n";
  }
  return text;
}

// Every finished repetition's foreign load, steal and own CPU, the noisy ones flagged.
// The traces of the experiments that wrote one ("trace": true in the matrix), linked.
std::string traces_list(const SystemResults& s) {
  std::string list;
  for (const auto& r : s.runs) {
    const std::string file = r.trace_file();
    if (file.empty()) continue;
    const fs::path trace = fs::absolute(file);
    list += fmt::format("- {} (repetition {}): [{}](file://{})\n", r.name, r.repeat,
                        trace.filename().string(), trace.string());
  }
  if (list.empty()) return "";
  return "Traces of the experiments that wrote one (Chrome trace-event JSON, one track per rank; "
         "open in Perfetto or chrome://tracing; docs/traces.md):\n\n" +
         list + "\n";
}

// With `dtbench run --until-within`: each training experiment's interval.json (beside its
// repetitions' directories), a row each; "" when no experiment has one.
std::string intervals_table(const SystemResults& s) {
  std::set<fs::path> experiments;
  for (const auto& r : s.runs) experiments.insert(fs::path(r.dir).parent_path());
  Table t;
  t.columns = {"experiment", "repetitions", "mean_s", "half_width %", "target %", "closed"};
  int wide = 0;
  for (const auto& dir : experiments) {
    std::ifstream in(dir / "interval.json");
    if (!in) continue;
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    const bool reached = j.value("reached", false), apart = j.value("apart", false);
    wide += reached || apart ? 0 : 1;
    const nlohmann::json& half = j["half_width"];
    t.rows.push_back(
        {dir.filename().string(), j.value("repetitions", 0), j.value("mean_s", 0.0),
         half.is_number() ? nlohmann::json(100 * half.get<double>()) : nlohmann::json("inf"),
         100 * j.value("within", 0.0),
         reached ? "within"
         : apart ? "apart"
                 : "WIDE"});
  }
  if (t.empty()) return "";
  return fmt::format(
      "Repeated until the answer held (`--until-within`): each experiment's 95% interval of its "
      "mean iteration time over its repetitions, against the target; {} of {} stayed wider than "
      "the target at the cap (WIDE: read them with their interval), the others closed within it "
      "or apart from every other of their group.\n\n{}\n",
      wide, t.rows.size(), t.markdown(1000));
}

std::string conditions_section(const std::vector<SystemResults>& systems) {
  std::string text;
  for (size_t k = 0; k < systems.size(); ++k) {
    const auto& list = systems[k].conditions;
    Table t;
    t.columns = {"experiment", "rep",       "attempts", "foreign load %",
                 "steal %",    "own CPU s", "wall s",   "flag"};
    int noisy = 0, retried = 0, unknown = 0;
    for (const auto& c : list) {
      noisy += c.noisy ? 1 : 0;
      retried += c.attempts > 1 ? 1 : 0;
      unknown += std::isnan(c.foreign_load) ? 1 : 0;
      t.rows.push_back({c.name, c.repeat, c.attempts, 100 * c.foreign_load, 100 * c.steal,
                        c.own_cpu_s, c.wall_s, c.noisy ? "NOISY" : ""});
    }
    text += fmt::format("### S{}\n\n", k + 1);
    if (unknown == static_cast<int>(list.size())) {
      text += "These results were written before the harness recorded foreign load and steal.\n\n";
      continue;
    }
    text += fmt::format(
        "{} of {} repetitions ran on a noisy machine (flag NOISY: other processes' CPU or the "
        "hypervisor's steal above the run's thresholds, in run.json); {} needed more than one "
        "attempt (every attempt is kept in its status.json).{}\n\n{}\n",
        noisy, list.size(), retried,
        unknown > 0 ? fmt::format(" {} have no record of it (older results).", unknown) : "",
        t.markdown(1000));
    text += intervals_table(systems[k]);
    text += traces_list(systems[k]);
  }
  return text;
}

void run_tool(const std::vector<std::string>& argv, const std::string& what) {
  std::string output;
  int code = run_captured(argv, &output);
  if (code != 0) {
    // The first line that says something (LaTeX errors start with '!').
    std::istringstream in(output);
    std::string line, first;
    while (std::getline(in, line)) {
      if (first.empty() && !line.empty()) first = line;
      static const std::regex located("line [0-9]+:|^!|rror");
      if (std::regex_search(line, located)) {
        first = line;
        break;
      }
    }
    throw RunError(fmt::format("{} failed (exit {}): {}", what, code, first));
  }
}

}  // namespace

int build_report(const ReportOptions& o) {
  require_writable(o.output);  // before the work, not after it
  Results results = load_results(o.result_dirs, o.each_directory);
  for (const auto& w : results.warnings) fmt::print(stderr, "dtbench report: {}\n", w);
  fs::path out = fs::absolute(o.output);
  fs::path build = out.parent_path();
  fs::path report_dir = fs::absolute(o.report_dir);
  fs::create_directories(build / "data");
  fs::create_directories(build / "figures");
  const SystemResults& primary = results.systems.front();
  std::string sections;
  std::map<std::string, BuiltSection> built;  // for the answer page
  int drawn = 0, number = 0;
  for (const auto& spec : figure_registry()) {
    ++number;
    FigureData f = spec.build(primary, results.systems);
    built[spec.id] = {number, &spec, f};
    sections += fmt::format("## {}. {}\n\n*{}*\n\n", number, spec.title, spec.question);
    if (f.table.empty()) {
      sections +=
          fmt::format("Not measured in these results (measured by: {}).\n\n", spec.matrices);
      continue;
    }
    fs::path csv = build / "data" / (spec.id + ".csv");
    write_file_atomically(csv.string(), f.table.csv());
    std::string extra_files;
    for (const auto& [name, table] : f.extra) {
      fs::path path = build / "data" / (spec.id + "_" + name + ".csv");
      write_file_atomically(path.string(), table.csv());
    }
    fs::path figure = build / "figures" / (spec.id + ".pdf");
    std::string labels;
    for (const auto& [name, value] : f.labels) labels += fmt::format("; {}='{}'", name, value);
    run_tool(
        {"gnuplot", "-e",
         fmt::format("figdir='{}'; data='{}'; prefix='{}'; series='{}'; backends='{}'; out='{}'{}",
                     (report_dir / "figures").string(), csv.string(),
                     (build / "data" / spec.id).string(), f.series, f.backends, figure.string(),
                     labels),
         (report_dir / "figures" / (spec.id + ".gp")).string()},
        "gnuplot " + spec.id + ".gp");
    ++drawn;
    sections += fmt::format("![{}](figures/{}.pdf)\n\n", f.caption, spec.id);
    for (const auto& s : f.sentences) sections += s + " ";
    sections += fmt::format("\n\n{}\nThe numbers: `data/{}.csv`.\n\n", f.table.markdown(), spec.id);
  }
  std::string text = read_text(report_dir / "document" / "template.md");
  replace(text, "{{date}}", fmt::format("{:%Y-%m-%d %H:%M} UTC", fmt::gmtime(std::time(nullptr))));
  replace(text, "{{primary}}", fmt::format("S1 ({})", primary.label));
  replace(text, "{{systems}}", systems_section(results.systems));
  std::string warnings;
  for (const auto& w : results.warnings) warnings += "- " + w + "\n";
  replace(text, "{{warnings}}",
          warnings.empty() ? "None: every result file was read.\n" : warnings);
  replace(text, "{{sections}}", sections);
  std::string diagnoses;
  for (size_t k = 0; k < results.systems.size(); ++k) {
    const Diagnosis d = diagnose(results.systems[k]);
    if (k == 0) {
      Table what_if, study;
      replace(text, "{{answer}}", answer_page(built, d, primary, what_if, study));
      if (!what_if.empty()) {
        write_file_atomically((build / "data" / "answer_what_if.csv").string(), what_if.csv());
      }
      if (!study.empty()) {
        write_file_atomically((build / "data" / "answer_study.csv").string(), study.csv());
      }
    }
    diagnoses +=
        fmt::format("## S{} ({})\n\n{}", k + 1, results.systems[k].label, diagnosis_markdown(d));
  }
  replace(text, "{{diagnosis}}", diagnoses);
  replace(text, "{{conditions}}", conditions_section(results.systems));
  fs::path markdown = build / "report.md";
  write_file_atomically(markdown.string(), text);
  fs::path partial = build / (out.stem().string() + ".partial.pdf");
  run_tool({"pandoc", markdown.string(), "-o", partial.string(), "--pdf-engine=pdflatex",
            "--columns=1000", "--resource-path=" + build.string(), "-H",
            (report_dir / "document" / "header.tex").string()},
           "pandoc");
  fs::rename(partial, out);
  return drawn;
}

}  // namespace dtbench
