#include "run/runner.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "catalogue/datasets.h"
#include "catalogue/models.h"
#include "cluster/cluster.h"
#include "common/error.h"
#include "common/files.h"
#include "common/host.h"
#include "common/ports.h"
#include "common/process.h"
#include "common/slurm.h"
#include "record/config.h"
#include "record/record.h"
#include "record/resource_usage.h"
#include "record/start_facts.h"
#include "run/experiment_command.h"
#include "run/hosts_file.h"
#include "run/interval.h"
#include "run/matrix.h"
#include "run/mpirun_notices.h"
#include "run/progress.h"
#include "run/run_system.h"
#include "stats/rank_stats.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

// A study's phases, in the order they run (matrix.h's "phase").
const std::vector<std::string> kPhaseOrder = {"calibrate", "measure", "accuracy", "verify"};

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

// A JSON object the harness wrote (null when absent or unreadable).
nlohmann::json read_object(const fs::path& path) {
  nlohmann::json j = read_json_or_null(path.string());
  return j.is_object() ? j : nlohmann::json(nullptr);
}

nlohmann::json read_status(const fs::path& path) {
  nlohmann::json j = read_object(path);
  return j.is_object() && j.contains("status") ? j : nlohmann::json(nullptr);
}

// The repetitions every measured experiment gets at least under --until-within: --repeat, else
// the matrix's own "repeat" above 1, else 3 (never fewer than 2: an interval needs two).
int least_repeat_of(const RunOptions& o, const Matrix& m) {
  return std::max(2, o.repeat > 0 ? o.repeat : m.repeat > 1 ? m.repeat : 3);
}

// The seconds every attempt recorded under out_dir took: what earlier runs spent on it.
double spent_before(const std::string& out_dir) {
  double seconds = 0;
  const fs::path root = fs::path(out_dir) / "experiments";
  std::error_code ec;
  if (!fs::exists(root, ec)) return 0;
  for (const auto& entry : fs::recursive_directory_iterator(root, ec)) {
    if (entry.path().filename() != "status.json") continue;
    const nlohmann::json status = read_status(entry.path());
    if (!status.is_object()) continue;
    for (const auto& a : status.value("attempts", nlohmann::json::array()))
      seconds += a.value("elapsed_s", 0.0);
  }
  return seconds;
}

// The datasets the matrix's training experiments read must be in data_dir before anything runs.
void check_datasets(const Matrix& m, const std::string& data_dir) {
  std::set<std::string> needed;
  for (const auto& e : m.experiments) {
    if (e.kind == "collectives") continue;
    const std::string name = e.params.value("model", TrainConfig{}.model);
    const ModelSpec& model = find_model(name);
    needed.insert(e.params.value("dataset", model.default_dataset));
  }
  for (const auto& d : needed) {
    const std::string& sub = find_dataset(d).dir;
    require(fs::is_directory(fs::path(data_dir) / sub),
            fmt::format("no {} in {} ({}/ missing): run `make data` or set DATA_DIR", d, data_dir,
                        sub));
  }
}

// The launcher asked for, or for "auto": srun --mpi=pmix inside a Slurm allocation whose srun
// has the PMIx plugin, mpirun otherwise. UserError for srun outside an allocation.
std::string launcher_for(const std::string& asked) {
  require(asked == "auto" || asked == "mpirun" || asked == "srun",
          fmt::format("unknown launcher '{}' (known: auto, mpirun, srun)", asked));
  const bool allocated = slurm_job().has_value();
  require(asked != "srun" || allocated,
          "--launcher srun runs inside a Slurm allocation (sbatch, salloc): SLURM_JOB_ID is unset");
  if (asked != "auto" || !allocated) return asked == "auto" ? "mpirun" : asked;
  std::string plugins;
  try {
    run_captured({"srun", "--mpi=list"}, &plugins);
  } catch (const UserError&) {  // no srun here
    return "mpirun";
  }
  return plugins.find("pmix") != std::string::npos ? "srun" : "mpirun";
}

// What every experiment's command line is built from (the dry run prints the same).
CommandSettings command_settings(const RunOptions& o) {
  CommandSettings s;
  s.bin_dir = o.bin_dir;
  s.netns_agent = o.netns_agent;
  s.python_ddp = o.python_ddp;
  s.data_dir = fs::absolute(o.data_dir).string();
  s.faults = o.faults;
  s.launcher = launcher_for(o.launcher);
  return s;
}

// Asks every host whether it can run the matrix (reached, the same build, the same data) before
// anything is launched: each failure a line on stderr naming the host, then UserError.
void preflight(const HostsFile& hosts, const CommandSettings& settings, const std::string& path) {
  if (hosts.emulated) current_cluster(hosts.netns_prefix);  // one line if it is not up
  DoctorOptions quick;
  quick.link_mb = 0;
  const std::vector<Finding> findings = examine_hosts(hosts, settings, quick);
  int failed = 0;
  for (const auto& f : findings) {
    if (f.verdict != "FAIL") continue;
    fmt::print(stderr, "dtbench run: preflight: {}\n", f.text);
    ++failed;
  }
  require(failed == 0, fmt::format("the preflight of {} failed ({} above): nothing was launched "
                                   "(--no-preflight launches anyway)",
                                   path, failed == 1 ? "the problem" : "the problems"));
}

// The hosts file, with its path made absolute for mpirun (which may run elsewhere).
HostsFile read_hosts_absolute(const std::string& path) {
  HostsFile hosts = read_hosts_file(path);
  hosts.path = fs::absolute(path).string();
  return hosts;
}

// Moves what a noisy attempt left (result and logs) into attempt-<k>/ before the rerun.
void keep_attempt_files(const fs::path& dir, int attempt) {
  fs::path kept = dir / fmt::format("attempt-{}", attempt);
  fs::create_directories(kept);
  for (const char* name : {"result.json", "stdout.log", "stderr.log"}) {
    if (fs::exists(dir / name)) fs::rename(dir / name, kept / name);
  }
}

std::string noise_note(const nlohmann::json& noise, bool noisy, size_t attempts) {
  std::string note = fmt::format("foreign {:.1f}%", 100 * noise["foreign_load"].get<double>());
  if (noise["steal"].get<double>() > 0.001) {
    note += fmt::format(", steal {:.1f}%", 100 * noise["steal"].get<double>());
  }
  if (attempts > 1) note += fmt::format(", {} attempts", attempts);
  const auto unwatched =
      noise.value("unwatched_hosts", nlohmann::json::array()).get<std::vector<std::string>>();
  if (!unwatched.empty()) {
    note += fmt::format(" (here only: not {})", fmt::join(unwatched, ", "));
  }
  return noisy ? "NOISY: " + note : note;
}

// A training record's ranks apart (rank_stats.h) and a host its start-up probe found slow
// (start_facts.h), for the progress line; "" for other records.
std::string ranks_note(const fs::path& result) {
  try {
    const RunRecord record = read_record(result.string());
    const std::string spread = rank_spread_text(rank_spread(record));
    const std::string slow = slow_host_text(link_finding(record));
    return spread.empty() || slow.empty() ? spread + slow : spread + "; " + slow;
  } catch (const std::exception&) {
    return "";
  }
}

// Whether the noise meter, which reads this machine's /proc, sees a host's processes: this
// machine under any name, or one of the emulated cluster's namespaces on it (a node of
// cluster up --ssh or --slurm is named as its namespace).
bool watched_here(const HostsFile& hosts, const std::string& name) {
  return hosts.emulated || name == "localhost" || name.rfind("127.", 0) == 0 ||
         name == host_name() || fs::exists("/run/netns/" + name);
}

class Runner {
 public:
  Runner(const RunOptions& o, Matrix m, HostsFile h)
      : o_(o), matrix_(std::move(m)), hosts_(std::move(h)), settings_(command_settings(o)) {
    repeat_ = o_.repeat > 0 ? o_.repeat : matrix_.repeat;
    if (o_.within <= 0 && o_.repeat == 0) o_.within = matrix_.within;  // --repeat: a fixed count
    if (o_.budget_s <= 0) o_.budget_s = matrix_.budget_s;
  }

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
    earlier_s_ = spent_before(o_.out_dir);
    began_ = std::chrono::steady_clock::now();
    if (o_.budget_s > 0) {
      fmt::print("dtbench run: a study within {} ({} spent on it before): {}\n",
                 format_duration(o_.budget_s), format_duration(earlier_s_),
                 fmt::join(phases_present(), ", then "));
    }
    std::map<std::string, int> count;
    for (const std::string& phase : kPhaseOrder) {
      std::vector<size_t> which = in_phase(phase);
      if (which.empty() || interrupted()) continue;
      limit_s_ = o_.budget_s;
      if (phase == "measure") {
        // Its least repetitions fit (check_budget); rounds past them leave the phases after it
        // their time.
        double least = 0;
        for (size_t k : which) least += estimate_of(matrix_.experiments[k]) * least_repeat();
        limit_s_ = std::max(o_.budget_s - reserve_after_measure_s(),
                            std::min(spent_s() + least, o_.budget_s - accuracy_s()));
      }
      if (o_.budget_s > 0) {
        fmt::print("dtbench run: {} ({} spent of {})\n", phase, format_duration(spent_s()),
                   format_duration(o_.budget_s));
      }
      if (phase == "verify") {
        verify(which, count);
      } else if (phase == "calibrate" || phase == "accuracy") {
        fixed_rounds(which, 1, count);
      } else {
        repeated(which, count);
      }
    }
    if (interrupted()) {
      fmt::print("dtbench run: interrupted; finished results are kept, rerun to resume\n");
      return 130;
    }
    int failed = count["failed"] + count["timeout"] + count["host gone"];
    fmt::print(
        "dtbench run: {} results ({} from earlier runs), {} failed or timed out, {} skipped "
        "(they need the emulated cluster or more hosts: their status.json says which){}{}, {} "
        "noisy (foreign load above {:.0f}% or steal above "
        "{:.0f}%: kept and flagged); in {}\n",
        count["ok"] + count["done"], count["done"], failed - count["host gone"], count["skipped"],
        count["pending"] > 0 ? fmt::format(", {} not run yet", count["pending"]) : "",
        count["host gone"] > 0
            ? fmt::format(", {} not run because a host stopped answering (rerun to resume)",
                          count["host gone"])
            : "",
        noisy_, 100 * o_.noise.max_foreign_load, 100 * o_.noise.max_steal, o_.out_dir);
    if (diverged_ > 0) {
      fmt::print(
          "dtbench run: {} of the failed diverged (a NaN or infinite loss, launched twice): the "
          "method's own divergence, or libtorch 2.x's intermittent NaN gradients, which "
          "ONEDNN_MAX_CPU_ISA=AVX2 has avoided at a cost in compute (docs/testing.md); "
          "--retry-failed runs them again\n",
          diverged_);
    }
    if (o_.within > 0) {
      fmt::print(
          "dtbench run: {} experiment{} within +-{:g}%, {} apart from every other of their "
          "group, {} not after {} repetitions{} (kept, their interval.json says how wide)\n",
          count["within"], count["within"] == 1 ? "" : "s", 100 * o_.within, count["apart"],
          count["wide"], max_repeat(),
          count["stopped by the budget"] > 0
              ? fmt::format(", {} stopped by the budget before either",
                            count["stopped by the budget"])
              : "");
    }
    if (o_.budget_s > 0) {
      fmt::print(
          "dtbench run: {} spent of the budget of {}; {} repetition{} not run within it (a "
          "larger --budget runs them, resuming here)\n",
          format_duration(spent_s()), format_duration(o_.budget_s), count["over budget"],
          count["over budget"] == 1 ? "" : "s");
    }
    return failed == 0 ? 0 : 1;
  }

 private:
  std::vector<size_t> in_phase(const std::string& phase) const {
    std::vector<size_t> which;
    for (size_t k = 0; k < matrix_.experiments.size(); ++k) {
      if (matrix_.experiments[k].phase == phase) which.push_back(k);
    }
    return which;
  }

  std::vector<std::string> phases_present() const {
    std::vector<std::string> names;
    for (const std::string& phase : kPhaseOrder) {
      if (!in_phase(phase).empty()) names.push_back(phase);
    }
    return names;
  }

  double spent_s() const {
    return earlier_s_ +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count();
  }

  // What an experiment's next repetition should take: its finished repetitions' mean, else the
  // matrix's estimate.
  double estimate_of(const Experiment& e) const {
    double sum = 0;
    int n = 0;
    const fs::path dir = fs::path(o_.out_dir) / "experiments" / e.dir();
    for (int rep = 1; rep <= std::max(repeat_, max_repeat()); ++rep) {
      const nlohmann::json status = read_status(dir / fmt::format("rep-{}", rep) / "status.json");
      if (!status.is_null() && status.value("status", "") == "ok") {
        sum += status.value("elapsed_s", 0.0);
        ++n;
      }
    }
    return n > 0 ? sum / n : e.estimate_s;
  }

  // What the measure phase leaves for the phases after it: one repetition of each accuracy
  // experiment and least_repeat() of the first kVerifyBatch cells to verify.
  double accuracy_s() const {
    double seconds = 0;
    for (size_t k : in_phase("accuracy")) seconds += estimate_of(matrix_.experiments[k]);
    return seconds;
  }

  double reserve_after_measure_s() const {
    double reserve = accuracy_s();
    const std::vector<size_t> cells = in_phase("verify");
    double cell_s = 0;
    for (size_t k : cells) cell_s += estimate_of(matrix_.experiments[k]) / cells.size();
    return reserve + cell_s * least_repeat() * std::min(cells.size(), kVerifyBatch);
  }

  // Under a budget: whether e's next repetition would end past the phase's limit.
  bool over_budget(const Experiment& e) const {
    return o_.budget_s > 0 && spent_s() + estimate_of(e) > limit_s_;
  }

  // Every experiment of `which` `rounds` times, in rounds.
  void fixed_rounds(const std::vector<size_t>& which, int rounds,
                    std::map<std::string, int>& count) {
    auto plan = round_schedule(which.size(), rounds);
    std::vector<double> estimates;
    estimates.reserve(plan.size());
    for (const auto& [index, rep] : plan)
      estimates.push_back(matrix_.experiments[which[index]].estimate_s);
    Progress progress(estimates, stdout);
    double estimate = 0;
    for (double e : estimates) estimate += e;
    fmt::print("dtbench run: matrix {} ({} experiments{}, estimated {}), hosts {}, results in {}\n",
               matrix_.name, which.size(),
               rounds > 1 ? fmt::format(" x {} repetitions in rounds", rounds) : "",
               format_duration(estimate), hosts_.path, o_.out_dir);
    for (size_t i = 0; i < plan.size() && !interrupted(); ++i) {
      const auto& [index, rep] = plan[i];
      const Experiment& e = matrix_.experiments[which[index]];
      progress.start(i, rounds > 1 ? fmt::format("{} (rep {})", e.name, rep) : e.name);
      ++count[run_one(e, rep, progress)];
    }
  }

  int least_repeat() const { return least_repeat_of(o_, matrix_); }
  int max_repeat() const { return std::max(least_repeat(), o_.max_repeat); }

  // The verify phase: the cells in the order o_.order_verify gives (the predicted best first),
  // kVerifyBatch at a time, each batch in rounds until tight (or fixed rounds), while the
  // budget lasts; the order and the predictions in OUT/verify.json.
  void verify(const std::vector<size_t>& which, std::map<std::string, int>& count) {
    std::vector<Experiment> cells;
    cells.reserve(which.size());
    for (size_t k : which) cells.push_back(matrix_.experiments[k]);
    std::vector<VerifyChoice> order = earlier_verify_order(cells);
    if (order.empty() && o_.order_verify) order = o_.order_verify(o_.out_dir, cells);
    if (order.empty()) {
      for (size_t i = 0; i < cells.size(); ++i) {
        order.push_back({i, std::nan(""), std::nan(""), "no model"});
      }
    }
    nlohmann::json list = nlohmann::json::array();
    std::vector<size_t> ordered;
    for (const VerifyChoice& c : order) {
      ordered.push_back(which.at(c.index));
      // A cell's expected iterations, where longer than the matrix's estimate of the whole run,
      // are what the budget weighs it by.
      Experiment& e = matrix_.experiments[which.at(c.index)];
      const double iterations = e.params.value("max_iters", 0.0);
      if (!std::isnan(c.expected_s) && iterations > 0)
        e.estimate_s = std::max(e.estimate_s, c.expected_s * iterations);
      const auto number = [](double x) {
        return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x);
      };
      list.push_back({{"experiment", cells.at(c.index).name},
                      {"dir", "experiments/" + cells.at(c.index).dir()},
                      {"predicted_s", number(c.predicted_s)},
                      {"expected_s", number(c.expected_s)},
                      {"estimate_s", e.estimate_s},
                      {"basis", c.basis}});
      fmt::print("  verify {}: {} {}\n", list.size(), cells.at(c.index).name,
                 std::isnan(c.predicted_s) ? "(not predicted: " + c.basis + ")"
                                           : fmt::format("(predicted {:.4f} s)", c.predicted_s));
    }
    write_file_atomically(
        o_.out_dir + "/verify.json",
        nlohmann::json({{"schema", "dtbench.verify/1"}, {"cells", list}}).dump(2) + "\n");
    for (size_t first = 0; first < ordered.size() && !interrupted(); first += kVerifyBatch) {
      if (std::all_of(ordered.begin() + static_cast<std::ptrdiff_t>(first), ordered.end(),
                      [&](size_t k) { return over_budget(matrix_.experiments[k]); })) {
        count["over budget"] += static_cast<int>(ordered.size() - first);
        fmt::print(
            "dtbench run: {} cells not measured within the budget (verify.json keeps "
            "their predictions)\n",
            ordered.size() - first);
        break;
      }
      const std::vector<size_t> batch(ordered.begin() + static_cast<std::ptrdiff_t>(first),
                                      ordered.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                            ordered.size(), first + kVerifyBatch)));
      repeated(batch, count);
    }
  }

  // Measured experiments: in rounds until tight under --until-within, else `repeat_` rounds.
  void repeated(const std::vector<size_t>& which, std::map<std::string, int>& count) {
    if (o_.within > 0) {
      rounds_until_tight(which, count);
    } else {
      fixed_rounds(which, repeat_, count);
    }
  }

  // The order an earlier run of this study chose for the same cells (verify.json): a rerun
  // resumes it rather than choose again from what the verified cells have added since. Empty
  // when there is none, or its cells are others.
  std::vector<VerifyChoice> earlier_verify_order(const std::vector<Experiment>& cells) const {
    const nlohmann::json earlier = read_object(fs::path(o_.out_dir) / "verify.json");
    std::vector<VerifyChoice> order;
    if (!earlier.is_object() || !earlier.contains("cells")) return order;
    for (const auto& c : earlier["cells"]) {
      const std::string name = c.value("experiment", "");
      auto it = std::find_if(cells.begin(), cells.end(),
                             [&](const Experiment& e) { return e.name == name; });
      if (it == cells.end()) return {};
      const auto number = [&c](const char* key) {
        return c.contains(key) && c[key].is_number() ? c[key].get<double>() : std::nan("");
      };
      const double expected =
          c.contains("expected_s") ? number("expected_s") : number("predicted_s");
      order.push_back({static_cast<size_t>(it - cells.begin()), number("predicted_s"), expected,
                       c.value("basis", "")});
    }
    if (order.size() != cells.size()) return {};
    return order;
  }

  // Rounds of the experiments of `which` still open, each closed once its interval is within
  // o_.within of its mean (after least_repeat() repetitions), after a failure or the budget, or
  // at max_repeat() (kept and said). Experiments that time no iterations (collective sweeps)
  // run least_repeat() times.
  void rounds_until_tight(const std::vector<size_t>& which, std::map<std::string, int>& count) {
    const size_t n = which.size();
    const int least = least_repeat(), most = max_repeat();
    double estimate = 0;
    for (size_t k : which) estimate += matrix_.experiments[k].estimate_s;
    fmt::print(
        "dtbench run: matrix {} ({} experiments, each repeated in rounds until the 95% interval "
        "of its mean iteration time is within +-{:g}%: {} to {} repetitions, estimated {} to "
        "{}), hosts {}, results in {}\n",
        matrix_.name, n, 100 * o_.within, least, most, format_duration(estimate * least),
        format_duration(estimate * most), hosts_.path, o_.out_dir);
    std::vector<bool> open(matrix_.experiments.size(), false);
    for (size_t k : which) open[k] = true;
    const size_t shift = n == 0 ? 0 : (n + static_cast<size_t>(least) - 1) / least;
    for (int round = 1; round <= most && !interrupted(); ++round) {
      std::vector<size_t> order;
      for (size_t k = 0; k < n; ++k) {
        const size_t index = which[(k + static_cast<size_t>(round - 1) * shift) % n];
        if (open[index]) order.push_back(index);
      }
      if (order.empty()) break;
      if (round > least) fmt::print("dtbench run: round {}: {} still open\n", round, order.size());
      std::vector<double> estimates;
      estimates.reserve(order.size());
      for (size_t index : order) estimates.push_back(matrix_.experiments[index].estimate_s);
      Progress progress(estimates, stdout);
      for (size_t i = 0; i < order.size() && !interrupted(); ++i) {
        const Experiment& e = matrix_.experiments[order[i]];
        progress.start(i, fmt::format("{} (rep {})", e.name, round));
        const std::string status = run_one(e, round, progress);
        ++count[status];
        if (status == "over budget" && e.kind != "collectives") ++count["stopped by the budget"];
        if (status != "ok" && status != "done") open[order[i]] = false;
      }
      if (interrupted()) break;
      std::map<size_t, RepeatedInterval> intervals;  // every timed experiment's, this round
      for (size_t k = 0; k < matrix_.experiments.size(); ++k) {
        const Experiment& e = matrix_.experiments[k];
        if (e.kind == "train" || e.kind == "python_ddp") {
          intervals[k] = interval_of((fs::path(o_.out_dir) / "experiments" / e.dir()).string());
        }
      }
      for (size_t index : order) close_if_done(round, index, intervals, open, count);
    }
  }

  // After a round: closes an experiment whose interval is tight, or whose interval overlaps
  // none of its group's of the same model (it ranks apart already), or that times no iterations and
  // has its least repetitions; writes its interval.json, and says so; at the last round, says which
  // stay wide.
  void close_if_done(int round, size_t index, const std::map<size_t, RepeatedInterval>& intervals,
                     std::vector<bool>& open, std::map<std::string, int>& count) {
    const Experiment& e = matrix_.experiments[index];
    const auto mine = intervals.find(index);
    if (mine == intervals.end()) {
      if (round >= least_repeat()) open[index] = false;
      return;
    }
    const RepeatedInterval& r = mine->second;
    std::vector<RepeatedInterval> group;
    for (const auto& [k, other] : intervals) {
      const Experiment& o = matrix_.experiments[k];
      if (k != index && o.group == e.group &&
          o.params.value("model", "") == e.params.value("model", ""))
        group.push_back(other);
    }
    const bool enough = static_cast<int>(r.values_s.size()) >= least_repeat();
    const bool within = tight(r, o_.within, least_repeat());
    const bool apart = open[index] && enough && !within && separated(r, group);
    const fs::path dir = fs::path(o_.out_dir) / "experiments" / e.dir();
    write_file_atomically((dir / "interval.json").string(),
                          interval_json(r, o_.within, max_repeat(), apart).dump(2) + "\n");
    if (!open[index]) return;  // failed: its repetitions say why
    if (within) {
      open[index] = false;
      ++count["within"];
      fmt::print("  within: {} {}\n", e.name, interval_text(r));
    } else if (apart) {
      open[index] = false;
      ++count["apart"];
      fmt::print("  apart:  {} {}, overlapping none of its group's\n", e.name, interval_text(r));
    } else if (round >= max_repeat()) {
      open[index] = false;
      ++count["wide"];
      fmt::print("  WIDE:   {} {} (the cap)\n", e.name, interval_text(r));
    }
  }

  void write_run_json() {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : matrix_.experiments) {
      nlohmann::json j = e.to_json();
      j["dir"] = "experiments/" + e.dir();
      list.push_back(j);
    }
    nlohmann::json hosts = nlohmann::json::array();
    for (const auto& h : hosts_.hosts) hosts.push_back({{"name", h.name}, {"slots", h.slots}});
    const NoisePolicy& n = o_.noise;
    nlohmann::json run = {{"schema", "dtbench.results/1"},
                          {"matrix", matrix_.name},
                          {"matrix_file", matrix_.path},
                          {"description", matrix_.description},
                          {"hosts_file", hosts_.path},
                          {"hosts", hosts},
                          {"emulated_cluster", hosts_.emulated},
                          {"repeat", repeat_},
                          {"within", o_.within},
                          {"max_repeat", o_.within > 0 ? max_repeat() : repeat_},
                          {"budget_s", o_.budget_s},
                          {"noise_policy",
                           {{"max_foreign_load", n.max_foreign_load},
                            {"max_steal", n.max_steal},
                            {"tries", n.tries},
                            {"quiet_wait_s", n.quiet_wait_s}}},
                          {"updated_at", now_utc()},
                          {"experiments", list}};
    write_file_atomically(o_.out_dir + "/run.json", run.dump(2) + "\n");
  }

  ProcessSpec spec_of(const Experiment& e, const fs::path& dir, const std::string& partial) {
    ProcessSpec spec;
    spec.argv =
        experiment_argv(e, hosts_, settings_, partial, e.kind == "python_ddp" ? free_port() : 0);
    spec.env = launch_env(hosts_, settings_, experiment_variables(e, partial));
    spec.stdout_path = (dir / "stdout.log").string();
    spec.stderr_path = (dir / "stderr.log").string();
    spec.timeout_s = e.time_limit_s;
    return spec;
  }

  // One attempt under the noise meter.
  ProcessOutcome attempt(ProcessSpec spec, const std::string& marker, Progress& progress,
                         NoiseReading* noise) {
    std::optional<NoiseMeter> meter;
    spec.started = [&](int pid) { meter.emplace(pid, marker); };
    spec.tick = [&](double s) {
      progress.tick(s);
      if (meter) meter->sample();
    };
    const double own_before = children_cpu_s();
    ProcessOutcome outcome = run_process(spec);
    *noise = meter ? meter->finish() : NoiseReading{};
    // Exact for the whole tree, reaped; sampled for the ranks another launcher started.
    noise->own_cpu_s = children_cpu_s() - own_before + noise->outside_tree_cpu_s;
    return outcome;
  }

  // Runs (or skips) one repetition of an experiment and returns its status.
  std::string run_one(const Experiment& e, int rep, Progress& progress) {
    fs::path dir = fs::path(o_.out_dir) / "experiments" / e.dir() / fmt::format("rep-{}", rep);
    fs::path status_path = dir / "status.json";
    nlohmann::json previous = read_status(status_path);
    std::string before = previous.is_null() ? "" : previous["status"].get<std::string>();
    // Its record as written, or compressed as committed results keep it.
    bool finished = before == "ok" && fs::exists(stored_file(dir.string(), "result.json"));
    bool failed = before == "failed" || before == "timeout" || before == "skipped";
    if (finished || (failed && !o_.retry_failed) || (o_.retry_failed && !failed)) {
      std::string shown = finished ? "done" : failed ? before : "pending";
      progress.finish(shown, previous.is_null() ? 0.0 : previous.value("elapsed_s", 0.0), false);
      return shown;
    }
    if (over_budget(e)) {
      progress.finish(
          "not run", 0, false,
          fmt::format("estimated {}: past the budget", format_duration(estimate_of(e))));
      return "over budget";
    }
    fs::create_directories(dir);
    nlohmann::json record = {{"schema", "dtbench.experiment/1"},
                             {"experiment", e.to_json()},
                             {"repeat", rep},
                             {"started_at", now_utc()}};
    for (size_t i : hosts_for(e.ranks, hosts_, e.ranks_per_host)) {
      if (gone_.count(i) == 0) continue;
      progress.finish("not run", 0, false,
                      fmt::format("{} stopped answering: rerun to resume", hosts_.hosts[i].name));
      return "host gone";
    }
    const std::string unplaceable = e.unplaceable_on(hosts_);
    if ((!e.network.empty() && !hosts_.emulated) || !unplaceable.empty()) {
      record["status"] = "skipped";
      record["reason"] = unplaceable.empty()
                             ? "a network profile needs the emulated cluster (hosts/netns-4)"
                             : unplaceable;
      write_file_atomically(status_path.string(), record.dump(2) + "\n");
      progress.finish("skipped", 0, false);
      return "skipped";
    }
    if (!e.network.empty()) record["network"] = shape_cluster(cluster_, e.network);
    std::string status;
    try {
      status = attempts_of(e, dir, progress, record);
    } catch (...) {
      if (!e.network.empty()) shape_cluster(cluster_, NetworkProfile{});
      throw;
    }
    if (!e.network.empty()) shape_cluster(cluster_, NetworkProfile{});
    return status;
  }

  // Attempts of one repetition until one is not noisy (or the tries are used up); writes
  // status.json with every attempt and returns the status of the last.
  std::string attempts_of(const Experiment& e, const fs::path& dir, Progress& progress,
                          nlohmann::json& record) {
    std::string partial = (dir / "result.json.partial").string();
    nlohmann::json attempts = nlohmann::json::array();
    std::string status;
    ProcessSpec spec;
    ProcessOutcome outcome;
    bool noisy = false;
    for (int number = 1;; ++number) {
      bool quiet = false;
      double waited = wait_for_quiet(o_.noise, &quiet, interrupted);
      std::error_code ec;
      fs::remove(partial, ec);
      fs::remove(dir / "result.json", ec);
      spec = spec_of(e, dir, partial);
      NoiseReading noise;
      const auto marker = experiment_marker(partial);
      const std::string marked = marker.begin()->first + "=" + marker.begin()->second;
      if (!interrupted()) outcome = attempt(spec, marked, progress, &noise);
      if (interrupted() || outcome.interrupted) {
        fs::remove(partial, ec);
        progress.finish("stopped", outcome.elapsed_s, false);
        return "interrupted";
      }
      status = outcome.timed_out                               ? "timeout"
               : outcome.exit_code == 0 && fs::exists(partial) ? "ok"
                                                               : "failed";
      if (status == "ok") fs::rename(partial, dir / "result.json");
      noisy = o_.noise.noisy(noise);
      nlohmann::json noise_json = noise.to_json();
      noise_json["unwatched_hosts"] = unwatched_hosts(e);
      attempts.push_back({{"attempt", number},
                          {"status", status},
                          {"exit_code", outcome.exit_code},
                          {"elapsed_s", outcome.elapsed_s},
                          {"quiet_wait_s", waited},
                          {"quiet_before", quiet},
                          {"noise", noise_json},
                          {"noisy", noisy}});
      // A failure that the next launch may not repeat, once more: OpenMPI 5.0's start-up race
      // (a rank killed before anything was measured), or a loss turned NaN (a method's own
      // divergence comes again; oneDNN's intermittent NaN does not).
      if (const std::string again = status == "failed" && number == 1
                                        ? relaunch_reason(tail_of(spec.stderr_path, 80))
                                        : "";
          !again.empty()) {
        attempts.back()["why"] = again;
        keep_attempt_files(dir, number);
        continue;
      }
      if (status != "ok" || !noisy || number >= o_.noise.tries) break;
      keep_attempt_files(dir, number);
    }
    const nlohmann::json& last = attempts.back();
    record["status"] = status;
    record["exit_code"] = outcome.exit_code;
    record["elapsed_s"] = outcome.elapsed_s;
    record["argv"] = spec.argv;
    record["noise"] = last["noise"];
    record["noisy"] = noisy;
    record["attempts"] = attempts;
    std::string why;
    if (status != "ok") {
      record["stderr_tail"] = tail_of(spec.stderr_path, 20);
      // A timed-out launch's last lines are those of its killing: only a failure says why.
      if (status == "failed") why = failure_line(record["stderr_tail"].get<std::string>());
      const std::string gone = hosts_gone(e);
      if (!gone.empty()) why = gone;
      record["why"] = why;
    }
    write_file_atomically((dir / "status.json").string(), record.dump(2) + "\n");
    if (noisy) ++noisy_;
    if (status == "failed" && training_diverged(record["stderr_tail"].get<std::string>())) {
      ++diverged_;
    }
    std::string note = why.empty() ? noise_note(last["noise"], noisy, attempts.size()) : why;
    const std::string ranks =
        status == "ok" && e.kind == "train" ? ranks_note(dir / "result.json") : "";
    if (!ranks.empty()) note += "; " + ranks;
    progress.finish(status, outcome.elapsed_s, true, note);
    return status;
  }

  // The experiment's hosts whose other load the noise meter cannot see (another machine's).
  std::vector<std::string> unwatched_hosts(const Experiment& e) const {
    std::vector<std::string> names;
    for (size_t i : hosts_for(e.ranks, hosts_, e.ranks_per_host)) {
      if (!watched_here(hosts_, hosts_.hosts[i].name)) names.push_back(hosts_.hosts[i].name);
    }
    return names;
  }

  // After a failure: the experiment's hosts that no longer run dtbench-probe alone (the
  // preflight's reach), remembered so that no later experiment waits on them; the first one's
  // failure as the doctor says it, or "".
  std::string hosts_gone(const Experiment& e) {
    constexpr double kReachTimeout_s = 20;
    std::vector<size_t> which;
    for (size_t i : hosts_for(e.ranks, hosts_, e.ranks_per_host)) {
      if (gone_.count(i) == 0) which.push_back(i);
    }
    if (interrupted() || which.size() < 2) return "";  // one host: the failure says it all
    const auto gone = unreachable_hosts(hosts_, which, settings_, kReachTimeout_s);
    for (const auto& [i, text] : gone) gone_[i] = text;
    return gone.empty() ? "" : gone.begin()->second;
  }

  RunOptions o_;
  Matrix matrix_;
  HostsFile hosts_;
  CommandSettings settings_;
  ClusterSpec cluster_;
  int repeat_ = 1;
  int noisy_ = 0;
  int diverged_ = 0;  // failed repetitions whose last attempt's loss turned NaN or infinite
  static constexpr size_t kVerifyBatch = 3;  // cells verified together, in rounds
  double earlier_s_ = 0, limit_s_ = 0;       // the budget: spent by earlier runs; this phase's
  std::chrono::steady_clock::time_point began_;
  std::map<size_t, std::string> gone_;  // hosts that stopped answering -> the reach failure
};

}  // namespace

std::vector<std::pair<size_t, int>> round_schedule(size_t experiments, int rounds) {
  std::vector<std::pair<size_t, int>> plan;
  if (experiments == 0) return plan;
  const size_t shift = (experiments + rounds - 1) / rounds;
  for (int round = 0; round < rounds; ++round) {
    for (size_t k = 0; k < experiments; ++k) {
      plan.emplace_back((k + round * shift) % experiments, round + 1);
    }
  }
  return plan;
}

namespace {

// A budget too small for a study's calibration and one round of its measurements.
void check_budget(const Matrix& matrix, const RunOptions& o) {
  const double budget = o.budget_s > 0 ? o.budget_s : matrix.budget_s;
  if (budget <= 0) return;
  const int repeat = least_repeat_of(o, matrix);
  double least = 0;
  for (const Experiment& e : matrix.experiments) {
    if (e.phase == "measure") least += e.estimate_s * repeat;
    if (e.phase == "calibrate" || e.phase == "accuracy") least += e.estimate_s;
  }
  require(budget >= least,
          fmt::format("a budget of {} is too small for matrix {}: calibrating, the least "
                      "repetitions of its measurements and its accuracy runs take about {} "
                      "(--budget {:.0f} or more)",
                      format_duration(budget), matrix.name, format_duration(least),
                      std::ceil(least / 60)));
}
}  // namespace

int run_matrix(const RunOptions& options) {
  RunOptions o = options;
  o.launcher = launcher_for(o.launcher);  // once: asking srun for its plugins takes a moment
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
      fmt::print(
          "[{}/{}] {} (estimate {}, timeout {})\n    {}\n", i + 1, matrix.experiments.size(),
          e.name, format_duration(e.estimate_s), format_duration(e.time_limit_s),
          fmt::join(experiment_argv(e, hosts, s,
                                    o.out_dir + "/experiments/" + e.dir() + "/rep-1/result.json"),
                    " "));
    }
    int repeat = o.repeat > 0 ? o.repeat : matrix.repeat;
    fmt::print("matrix {}: {} experiments{}, estimated {} in all, results would go to {}\n",
               matrix.name, matrix.experiments.size(),
               repeat > 1 ? fmt::format(" x {} repetitions in rounds", repeat) : "",
               format_duration(matrix.estimate_s() * repeat), o.out_dir);
    return 0;
  }
  check_budget(matrix, o);
  check_datasets(matrix, o.data_dir);
  catch_interrupts();
  if (o.preflight) preflight(hosts, command_settings(o), o.hosts_path);
  return Runner(o, std::move(matrix), std::move(hosts)).run();
}

int doctor_command(const RunOptions& options, const DoctorOptions& doctor) {
  HostsFile hosts = read_hosts_absolute(options.hosts_path);
  if (hosts.emulated) current_cluster(hosts.netns_prefix);  // one line if it is not up
  catch_interrupts();
  const std::vector<Finding> findings = examine_hosts(hosts, command_settings(options), doctor);
  for (const auto& f : findings) fmt::print("{:<5} {}\n", f.verdict, f.text);
  return all_pass(findings) ? 0 : 1;
}

int launch(const RunOptions& options, int ranks, const std::vector<std::string>& command) {
  HostsFile hosts = read_hosts_absolute(options.hosts_path);
  require(
      ranks >= 1 && ranks <= hosts.total_slots(),
      fmt::format("--ranks {}: {} has {} slots", ranks, options.hosts_path, hosts.total_slots()));
  if (hosts.emulated) current_cluster(hosts.netns_prefix);  // one line if it is not up
  ProcessSpec spec;
  const CommandSettings settings = command_settings(options);
  spec.argv = launch_argv(ranks, hosts, settings);
  spec.argv.insert(spec.argv.end(), command.begin(), command.end());
  spec.env = launch_env(hosts, settings);
  MpirunNotices notices([](const std::string& line) { fmt::print(stderr, "{}\n", line); });
  spec.stderr_line = [&](const std::string& line) { notices.line(line); };
  catch_interrupts();
  const int code = run_process(spec).exit_code;
  notices.finish();
  return code;
}

}  // namespace dtbench
