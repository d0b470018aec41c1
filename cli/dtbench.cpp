// dtbench: the harness. `dtbench run` runs an experiment matrix over a hosts file; `dtbench
// launch` runs any command the same way; `dtbench cluster up|down|status` manages the emulated
// cluster; `dtbench doctor` checks a hosts file's hosts and links; `dtbench report` builds the
// PDF report from results; `dtbench predict` holds the cost model against them
// (docs/harness.md, docs/report.md).
#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <climits>
#include <cstdlib>
#include <filesystem>

#include "catalogue/datasets.h"
#include "catalogue/methods.h"
#include "cluster/cluster.h"
#include "cluster/cluster_slurm.h"
#include "cluster/cluster_ssh.h"
#include "cluster/slurm_script.h"
#include "common/cli_numbers.h"
#include "common/error.h"
#include "common/fault_plan.h"
#include "common/files.h"
#include "common/main_guard.h"
#include "report/document/document.h"
#include "report/predict/against_grid.h"
#include "report/predict/candidates.h"
#include "report/predict/predict.h"
#include "report/predict/what_if_command.h"
#include "run/runner.h"

namespace {

namespace fs = std::filesystem;
using namespace dtbench;

std::string own_directory() {
  char path[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? fs::path(std::string(path, n)).parent_path().string() : ".";
}

void add_run(CLI::App& app, RunOptions& o) {
  auto* run = app.add_subcommand("run", "Run an experiment matrix over a hosts file (resumable)");
  run->add_option("--hosts", o.hosts_path, "Hosts file (OpenMPI hostfile syntax), e.g. hosts/local")
      ->required();
  run->add_option("--matrix", o.matrix, "study | smoke | quick | standard | full, or a .json path")
      ->capture_default_str();
  run->add_option("--out", o.out_dir,
                  "Results directory (default: results/<matrix>-<hosts>-<hostname>)");
  run->add_option("--data-dir", o.data_dir, "Datasets (default: $DATA_DIR or data)");
  run->add_option("--matrices-dir", o.matrices_dir, "Where matrix names are looked up")
      ->capture_default_str();
  run->add_option("--repeat", o.repeat,
                  "Repetitions of every experiment, run in rounds (default: the matrix's, or 1)")
      ->check(positive());
  run->add_option_function<double>(
         "--until-within", [&o](double percent) { o.within = percent / 100; },
         "Repeat every experiment in rounds until the 95% interval of its mean iteration time "
         "is within +-PCT% of that mean (at least --repeat repetitions, 3 by default; at most "
         "--max-repeat); each experiment's interval.json says what it reached")
      ->type_name("PCT")
      ->check(CLI::PositiveNumber);
  run->add_option("--max-repeat", o.max_repeat, "With --until-within: the most repetitions")
      ->capture_default_str()
      ->check(positive());
  run->add_option_function<double>(
         "--budget", [&o](double minutes) { o.budget_s = 60 * minutes; },
         "A study's time in all, minutes (default: the matrix's own, the study's 19): phases in "
         "turn, no repetition started that would end past it; a rerun resumes within it")
      ->type_name("MIN")
      ->check(CLI::PositiveNumber);
  run->add_option("--max-foreign-load", o.noise.max_foreign_load,
                  "An attempt is noisy when other processes used more than this share of the "
                  "machine's CPU")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  run->add_option("--max-steal", o.noise.max_steal,
                  "... or the hypervisor stole more than this share of it")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  run->add_option("--noise-tries", o.noise.tries, "Attempts in all for a noisy experiment")
      ->capture_default_str()
      ->check(positive());
  run->add_option("--quiet-wait-s", o.noise.quiet_wait_s,
                  "Before each attempt, wait at most this long for a quiet machine (0: never)")
      ->capture_default_str()
      ->check(non_negative());
  run->add_flag("--dry-run", o.dry_run, "Print the experiments and their commands; run nothing");
  run->add_option("--launcher", o.launcher,
                  "auto: srun --mpi=pmix inside a Slurm allocation whose srun has PMIx, else "
                  "mpirun | mpirun | srun")
      ->capture_default_str();
  run->add_flag("--no-preflight{false}", o.preflight,
                "Launch without first asking every host for dtbench's build and the data");
  run->add_flag("--retry-failed", o.retry_failed,
                "Rerun only the experiments that failed, timed out or were skipped");
  run->add_option_function<std::vector<std::string>>(
         "--fault",
         [&o](const std::vector<std::string>& given) {
           for (const auto& text : given) {
             auto eq = text.find('=');
             require(eq != std::string::npos && eq > 0,
                     fmt::format("--fault '{}': expected GROUP=SPEC", text));
             o.faults[text.substr(0, eq)] = FaultPlan::parse(text.substr(eq + 1)).spec();
           }
         },
         "Test only: GROUP=SPEC gives that group's binaries --fault SPEC")
      ->group("");
}

void add_launch(CLI::App& app, RunOptions& o, int& ranks, std::vector<std::string>& command) {
  auto* launch = app.add_subcommand(
      "launch", "Run any command on ranks of a hosts file, as `run` launches its experiments");
  launch->add_option("--hosts", o.hosts_path, "Hosts file, e.g. hosts/netns-4")->required();
  launch->add_option("--ranks", ranks, "Number of ranks")->required();
  launch->add_option("command", command, "The command and its arguments (after --)")->required();
}

void add_report(CLI::App& app, ReportOptions& o) {
  auto* report = app.add_subcommand(
      "report", "Results directories -> CSV -> gnuplot -> Markdown -> pandoc -> PDF");
  report->add_option("dirs", o.result_dirs, "Results directories (several: compared side by side)")
      ->required();
  report->add_option("-o,--output", o.output, "The PDF; report.md, data/ and figures/ go beside it")
      ->capture_default_str();
  report->add_flag("--each-directory", o.each_directory,
                   "Every directory a system of its own, even two runs of one machine (to "
                   "compare a run with a reference made on the same kind of machine)");
}

void add_predict(CLI::App& app, std::vector<std::string>& dirs, std::string& grid) {
  auto* predict = app.add_subcommand(
      "predict", "The cost model against results: each experiment predicted, with its error");
  predict->add_option("dirs", dirs, "Results directories (each predicted on its own)")->required();
  predict
      ->add_option("--grid", grid,
                   "A grid measured apart (e.g. MATRIX=quick-answer): each directory's model "
                   "predicts its experiments, held against what it measured")
      ->check(CLI::ExistingDirectory);
}

void add_what_if(CLI::App& app, WhatIfOptions& w) {
  auto* what_if = app.add_subcommand(
      "what-if",
      "The cost model on clusters not here: each method's scaling efficiency on 2 to "
      "--ranks ranks at each --gbit");
  what_if
      ->add_option("--model", w.model,
                   "vgg11, lenet5, resnet50, bert-base, or a parameter list file")
      ->capture_default_str();
  what_if->add_option("--ranks", w.max_ranks, "The most ranks")->capture_default_str();
  what_if->add_option("--gbit", w.gbits, "Link rates in Gbit/s")
      ->delimiter(',')
      ->capture_default_str();
  what_if->add_option("--latency-us", w.latency_us, "Link latency")->capture_default_str();
  what_if->add_option("--profile", w.profile_dir,
                      "Results with traced blocking runs of the model: its measured compute "
                      "(vgg11: the committed emulated-cluster results by default)");
  what_if->add_option("--forward-s", w.forward_s, "One rank's forward, seconds");
  what_if->add_option("--backward-s", w.backward_s, "One rank's backward, seconds");
  what_if->add_option("--optimizer-s", w.optimizer_s, "One rank's optimizer step, seconds");
  what_if->add_option("--compute-scale", w.compute_scale,
                      "Compute = --scale-from's measured forward and backward times this (e.g. "
                      "the ratio of multiply-adds per batch)");
  what_if->add_option("--scale-from", w.scale_from, "The measured model --compute-scale scales")
      ->capture_default_str();
  what_if->add_option("-o,--output", w.output, "Draw the figure into this PDF");
}

// The study's verify phase: its cells predicted from the results so far, the best first.
std::vector<VerifyChoice> order_by_prediction(const std::string& out_dir,
                                              const std::vector<Experiment>& cells) {
  std::vector<TrainConfig> configs;
  configs.reserve(cells.size());
  for (const Experiment& e : cells) {
    configs.push_back(train_config_of(e));
    if (e.kind == "python_ddp") configs.back().sync = "python_ddp";  // its own, not modelled
  }
  std::vector<VerifyChoice> order;
  try {
    const Results results = load_results({out_dir});
    for (const CandidateCell& c : order_candidates(results.systems.at(0), configs))
      order.push_back({c.index, c.predicted_s, c.expected_s, c.basis});
  } catch (const UserError& e) {
    fmt::print("dtbench run: the verify phase in the matrix's order: {}\n", e.what());
  }
  return order;
}

// Each directory on its own: its network and compute are the model's inputs; with a grid, what
// they predict of the grid's experiments.
int predict_command(const std::vector<std::string>& dirs, const std::string& grid_dir) {
  const Results grid = grid_dir.empty() ? Results{} : load_results({grid_dir});
  for (const auto& dir : dirs) {
    Results results = load_results({dir});
    for (const auto& w : results.warnings) fmt::print(stderr, "dtbench predict: {}\n", w);
    for (const auto& system : results.systems) {
      if (grid_dir.empty()) {
        fmt::print("{}: {}", dir, prediction_text(system));
        continue;
      }
      for (const auto& measured : grid.systems) {
        fmt::print("{} against {}: {}", dir, grid_dir,
                   against_grid_text(against_grid(system, measured)));
      }
    }
  }
  return 0;
}

// What `dtbench cluster` is asked besides the spec.
struct ClusterArgs {
  std::string hosts_out;
  bool json = false;
  bool ssh = false;
  bool slurm = false;
};

void add_slurm_script(CLI::App& app, SlurmScriptOptions& s, std::string& output) {
  auto* script =
      app.add_subcommand("slurm-script",
                         "Write a matrix as an sbatch script: one rank per node, `dtbench run` in "
                         "the allocation");
  script->add_option("--matrix", s.matrix, "smoke | quick | standard | full, or a .json path")
      ->capture_default_str();
  script
      ->add_option("--nodes", s.nodes, "Nodes to ask for (default: the largest experiment's ranks)")
      ->check(positive());
  script->add_option("--data-dir", s.data_dir,
                     "Datasets on every node (default: $DATA_DIR or data)");
  script->add_option("--out", s.out_dir, "Results directory (also the job's output and hosts file)")
      ->required();
  script->add_option("--partition", s.partition, "sbatch --partition (default: the default one)");
  script->add_option("--time", s.time_limit, "sbatch --time (default: the partition's limit)");
  script->add_option("-o,--output", output, "Write the script here (default: standard output)");
  script->add_option("run_args", s.run_args, "After --: more options for `dtbench run`");
}

int slurm_script_command(SlurmScriptOptions s, const std::string& matrices_dir,
                         const std::string& output) {
  const Matrix matrix = load_matrix(s.matrix, matrices_dir);
  s.dtbench = own_directory() + "/dtbench";
  s.data_dir = fs::absolute(s.data_dir).lexically_normal().string();
  s.out_dir = fs::absolute(s.out_dir).lexically_normal().string();
  const std::string text = slurm_script(matrix, s);
  fs::create_directories(s.out_dir);  // sbatch opens the job's output there
  if (output.empty()) {
    fmt::print("{}", text);
  } else {
    write_file_atomically(output, text);
    fs::permissions(output, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  }
  return 0;
}

void add_doctor(CLI::App& app, RunOptions& o, DoctorOptions& d) {
  auto* doctor = app.add_subcommand(
      "doctor",
      "Is a hosts file ready? Each host reached through mpirun, the same build and data "
      "everywhere, and every link measured (a slow host or link named)");
  doctor->add_option("--hosts", o.hosts_path, "Hosts file, e.g. hosts/netns-4")->required();
  doctor->add_option("--data-dir", o.data_dir, "Datasets (default: $DATA_DIR or data)");
  doctor
      ->add_option("--link-mb", d.link_mb,
                   "Each link's message size in MiB (0: links not measured)")
      ->capture_default_str()
      ->check(non_negative());
  doctor
      ->add_option("--repeats", d.repeats,
                   "Messages per direction of each link (the fastest counts)")
      ->capture_default_str()
      ->check(positive());
}

void add_cluster(CLI::App& app, ClusterSpec& spec, ClusterArgs& args) {
  auto* cluster = app.add_subcommand("cluster", "The emulated cluster (network namespaces)");
  cluster->require_subcommand(1);
  auto* up = cluster->add_subcommand("up", "Create (or reshape) it; needs root and iproute2");
  up->add_option("--nodes", spec.hosts, "Number of hosts")->capture_default_str();
  up->add_option("--rate", spec.rate, "Every link's rate (tc units: 1gbit, 100mbit; none)")
      ->capture_default_str();
  up->add_option("--delay", spec.delay, "Per-direction delay (needs netem in the kernel; none)")
      ->capture_default_str();
  up->add_option("--bottleneck-host", spec.bottleneck_host,
                 "This host (0-based) gets --bottleneck-rate");
  up->add_option("--bottleneck-rate", spec.bottleneck_rate, "The bottleneck host's link rate")
      ->capture_default_str();
  up->add_option("--subnet", spec.subnet, "The cluster's /24 (first three octets)")
      ->capture_default_str();
  up->add_flag("--ssh", args.ssh,
               "Also an OpenSSH server in each namespace (key-only, its own hostname), for "
               "mpirun over ssh as on a real cluster (`make setup-cluster` installs it)");
  up->add_flag("--slurm", args.slurm,
               "Also a Slurm partition of its hosts: slurmctld here, a slurmd in each namespace, "
               "munge (`make setup-cluster`); clients need SLURM_CONF, as status says");
  up->add_option("--write-hosts", args.hosts_out,
                 "Also write the matching hosts file here (with --ssh: the nodes' names)");
  for (auto* sub : {up, cluster->add_subcommand("down", "Remove everything up made"),
                    cluster->add_subcommand("status", "Show hosts, addresses and shaping")}) {
    sub->add_option("--prefix", spec.prefix, "Name prefix of its namespaces and links")
        ->capture_default_str();
  }
  cluster->get_subcommand("status")->add_flag("--json", args.json, "As JSON");
}

int cluster_command(CLI::App& cluster, const ClusterSpec& spec, const ClusterArgs& args) {
  if (cluster.got_subcommand("up")) {
    cluster_up(spec, args.ssh, args.slurm);
    if (!args.hosts_out.empty()) {
      write_file_atomically(args.hosts_out, cluster_hosts_file(spec, args.ssh));
    }
  } else if (cluster.got_subcommand("down")) {
    cluster_down(spec.prefix);
    fmt::print("emulated cluster {}*: down\n", spec.prefix);
    return 0;
  }
  nlohmann::json status = cluster_status(spec.prefix);
  if (args.json) {
    fmt::print("{}\n", status.dump(2));
  } else if (!status["up"].get<bool>()) {
    fmt::print("emulated cluster {}*: down\n", spec.prefix);
  } else {
    fmt::print(
        "emulated cluster {}*: up, {} hosts; delay {}{}{}\n", spec.prefix, status["hosts"].size(),
        status["delay_emulated"].get<bool>() ? status["spec"]["delay"].get<std::string>()
                                             : "not emulated (this kernel has no netem)",
        status["ssh"].get<bool>()
            ? "; an sshd on each (ssh -F " + ssh_client_config(spec.prefix) + " NODE)"
            : "",
        status["slurm"].get<bool>() ? "; Slurm (SLURM_CONF=" + slurm_conf(spec.prefix) + " sinfo)"
                                    : "");
    for (const auto& h : status["hosts"]) {
      fmt::print("  {:<10} {:<12} {}\n", h["namespace"].get<std::string>(),
                 h["address"].get<std::string>(), h["qdisc"].get<std::string>());
    }
  }
  return status["up"].get<bool>() || !cluster.got_subcommand("status") ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return guarded_main("dtbench", [&] {
    CLI::App app("dtbench: distributed-training benchmarks over a hosts file", "dtbench");
    app.require_subcommand(1);
    RunOptions run;
    run.data_dir = default_data_dir();
    run.bin_dir = own_directory();
    run.matrices_dir = DTBENCH_SOURCE_DIR "/harness/matrices";
    run.netns_agent = DTBENCH_SOURCE_DIR "/harness/cluster/netns-agent";
    run.python_ddp = DTBENCH_SOURCE_DIR "/baselines/python_ddp.py";
    add_run(app, run);
    int ranks = 0;
    std::vector<std::string> command;
    add_launch(app, run, ranks, command);
    ReportOptions report;
    report.report_dir = DTBENCH_SOURCE_DIR "/report";
    add_report(app, report);
    std::vector<std::string> predict_dirs;
    std::string predict_grid;
    WhatIfOptions what_if;
    what_if.shapes_dir = DTBENCH_SOURCE_DIR "/model/shapes";
    what_if.figures_dir = DTBENCH_SOURCE_DIR "/report/figures";
    what_if.default_profile_dir =
        DTBENCH_SOURCE_DIR "/results/reference/model-netns-4-1gbit-xeon-vm";
    add_predict(app, predict_dirs, predict_grid);
    add_what_if(app, what_if);
    app.add_subcommand("methods", "Every synchronisation method: what moves, its modes (Markdown)");
    app.add_subcommand("matrices",
                       "Every matrix: what it runs, its experiments and estimated time (Markdown)");
    DoctorOptions doctor;
    add_doctor(app, run, doctor);
    SlurmScriptOptions script;
    script.matrix = "smoke";
    script.data_dir = default_data_dir();
    std::string script_output;
    add_slurm_script(app, script, script_output);
    ClusterSpec spec;
    ClusterArgs cluster_args;
    add_cluster(app, spec, cluster_args);
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      throw UserError(first_line(e.what()));
    }
    if (app.got_subcommand("run")) {
      run.order_verify = order_by_prediction;
      return run_matrix(run);
    }
    if (app.got_subcommand("methods")) {
      fmt::print("{}", methods_table());
      return 0;
    }
    if (app.got_subcommand("matrices")) {
      fmt::print("{}", matrices_table(run.matrices_dir));
      return 0;
    }
    if (app.got_subcommand("launch")) return launch(run, ranks, command);
    if (app.got_subcommand("doctor")) return doctor_command(run, doctor);
    if (app.got_subcommand("slurm-script")) {
      return slurm_script_command(script, run.matrices_dir, script_output);
    }
    if (app.got_subcommand("report")) {
      int figures = build_report(report);
      fmt::print("dtbench report: {} figures; {}\n", figures, report.output);
      return 0;
    }
    if (app.got_subcommand("predict")) return predict_command(predict_dirs, predict_grid);
    if (app.got_subcommand("what-if")) return what_if_command(what_if);
    return cluster_command(*app.get_subcommand("cluster"), spec, cluster_args);
  });
}
