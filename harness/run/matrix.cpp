#include "run/matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "catalogue/backends.h"
#include "common/error.h"
#include "common/registry.h"
#include "record/cli.h"
#include "record/config.h"
#include "run/progress.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// The keys each kind of experiment passes to its binary as options. A training experiment takes
// dtbench-train's own options (train_option_keys(), checked by its own parser) but those the
// harness sets itself; python_ddp takes the same options for the ones baselines/python_ddp.py
// has; collectives map to bench_collectives' and Google Benchmark's flags.
const std::set<std::string> kHarnessSetTrainKeys = {"data_dir",   "out",  "master",
                                                    "world_size", "rank", "trace"};
const std::set<std::string> kPythonDdpKeys = {"model", "global_batch", "max_iters", "threads",
                                              "seed",  "bucket_mb",    "malloc"};
const std::set<std::string> kCollectivesKeys = {"backend", "filter", "repetitions", "rest_ms",
                                                "size_seconds"};
const std::vector<std::string> kKinds = {"train", "collectives", "python_ddp"};
const std::vector<std::string> kPhases = {"calibrate", "measure", "accuracy", "verify"};

const std::set<std::string>& train_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> all;
    for (const auto& key : train_option_keys()) {
      if (kHarnessSetTrainKeys.count(key) == 0) all.insert(key);
    }
    return all;
  }();
  return keys;
}

const std::set<std::string>& binary_keys(const std::string& kind) {
  static const std::set<std::string> none;
  return kind == "train"         ? train_keys()
         : kind == "python_ddp"  ? kPythonDdpKeys
         : kind == "collectives" ? kCollectivesKeys
                                 : none;
}

const std::set<std::string> kHarnessKeys = {
    "group",          "kind",      "ranks",           "time_limit_s",    "estimate_s",
    "exclude",        "link_rate", "bottleneck_host", "bottleneck_rate", "trace",
    "ranks_per_host", "phase",     "mpi_fragment"};

std::string text_of(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

ojson read_json(const std::string& path) {
  std::ifstream in(path);
  require(in.good(), fmt::format("cannot read matrix file {}", path));
  try {
    return ojson::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(
        fmt::format("matrix file {} is not valid JSON: {}", path, first_line(e.what())));
  }
}

std::string resolve_path(const std::string& name_or_path, const std::string& dir) {
  bool is_path =
      name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".json";
  if (is_path) return name_or_path;
  std::string path = (fs::path(dir) / (name_or_path + ".json")).string();
  if (fs::exists(path)) return path;
  std::vector<std::string> known;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir, ec)) {
    if (f.path().extension() == ".json") known.push_back(f.path().stem().string());
  }
  std::sort(known.begin(), known.end());
  throw UserError(
      fmt::format("unknown matrix '{}' (known: {})", name_or_path,
                  known.empty() ? "none in " + dir : fmt::format("{}", fmt::join(known, ", "))));
}

// One experiment from a fully scalar entry.
Experiment make_experiment(const ojson& entry, const std::string& where) {
  Experiment e;
  require(entry.contains("group") && entry["group"].is_string() &&
              std::regex_match(entry["group"].get<std::string>(), std::regex("[a-z0-9_]+")),
          where + ": needs \"group\": a name of lower-case letters, digits and _");
  e.group = entry["group"];
  e.kind = entry.value("kind", "train");
  require(std::find(kKinds.begin(), kKinds.end(), e.kind) != kKinds.end(),
          fmt::format("{}: unknown kind '{}' (known: {})", where, e.kind, fmt::join(kKinds, ", ")));
  auto number = [&](const char* key, double fallback) {
    if (!entry.contains(key)) return fallback;
    require(entry[key].is_number() && entry[key].get<double>() >= 0,
            fmt::format("{}: \"{}\" must be a number >= 0", where, key));
    return entry[key].get<double>();
  };
  e.ranks = static_cast<int>(number("ranks", 1));
  require(e.ranks >= 1 && number("ranks", 1) == e.ranks,
          where + ": \"ranks\" must be a whole number >= 1");
  e.ranks_per_host = static_cast<int>(number("ranks_per_host", 0));
  require(number("ranks_per_host", 0) == e.ranks_per_host &&
              (e.ranks_per_host == 0 || e.ranks % e.ranks_per_host == 0),
          where + ": \"ranks_per_host\" must be a whole number >= 1 that divides \"ranks\"");
  const double fragment = number("mpi_fragment", 0);
  require(fragment == std::floor(fragment) &&
              (fragment == 0 || (fragment >= 1024 && fragment <= 1 << 30)),
          where + ": \"mpi_fragment\" must be a whole number of bytes from 1024 to 1 GiB");
  e.mpi_fragment = static_cast<int>(fragment);
  e.time_limit_s = number("time_limit_s", e.time_limit_s);
  e.estimate_s = number("estimate_s", e.estimate_s);
  e.network.link_rate = entry.value("link_rate", "");
  e.network.bottleneck_host = static_cast<int>(number("bottleneck_host", -1));
  e.network.bottleneck_rate = entry.value("bottleneck_rate", "");
  if (entry.contains("trace")) {
    require(entry["trace"].is_boolean() && e.kind == "train",
            where + ": \"trace\" is true or false, for a training experiment");
    e.trace = entry["trace"].get<bool>();
  }
  e.phase = entry.value("phase", "measure");
  require(
      std::find(kPhases.begin(), kPhases.end(), e.phase) != kPhases.end(),
      fmt::format("{}: unknown phase '{}' (known: {})", where, e.phase, fmt::join(kPhases, ", ")));
  require(e.phase != "verify" || e.kind != "collectives",
          where + ": a verify cell is a training run the model can predict");
  require((e.network.bottleneck_host >= 0) == !e.network.bottleneck_rate.empty(),
          where + ": bottleneck_host and bottleneck_rate go together");
  const auto& keys = binary_keys(e.kind);
  for (const auto& [key, value] : entry.items()) {
    if (kHarnessKeys.count(key) != 0) continue;
    require(keys.count(key) != 0, fmt::format("{}: unknown key '{}' for kind {} (known: {})", where,
                                              key, e.kind, fmt::join(keys, ", ")));
    require(
        value.is_primitive() && !value.is_null(),
        fmt::format("{}: '{}' must be a string, number or boolean ({})", where, key, value.dump()));
    e.params[key] = value;
  }
  return e;
}

}  // namespace

TrainConfig train_config_of(const Experiment& e) {
  std::vector<std::string> args = option_args(e.params);
  args.insert(args.begin(), "dtbench-train");
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const auto& a : args) argv.push_back(a.c_str());
  TrainConfig c = parse_train_cli(static_cast<int>(argv.size()), argv.data()).value();
  c.world_size = e.ranks;
  return c;
}

namespace {

// The values a binary would reject, caught before anything runs. A training or python_ddp
// experiment's options go through dtbench-train's own parser; what depends on the ranks is
// checked here.
void check_values(const Experiment& e, const std::string& where) {
  try {
    const auto& p = e.params;
    if (e.kind == "collectives") {
      if (p.contains("backend")) find_by_name(backend_registry(), text_of(p["backend"]), "backend");
      require(!p.contains("filter") || p["filter"].is_string(), "filter must be a string");
      require(!p.contains("repetitions") ||
                  (p["repetitions"].is_number_integer() && p["repetitions"].get<int>() >= 1),
              "repetitions must be a whole number >= 1");
      require(
          !p.contains("rest_ms") || (p["rest_ms"].is_number() && p["rest_ms"].get<double>() >= 0),
          "rest_ms must be a number >= 0");
      require(!p.contains("size_seconds") ||
                  (p["size_seconds"].is_number() && p["size_seconds"].get<double>() > 0),
              "size_seconds must be a number > 0");
      return;
    }
    const TrainConfig c = train_config_of(e);
    require(c.global_batch % e.ranks == 0,
            fmt::format("global batch {} does not divide by {} ranks", c.global_batch, e.ranks));
    require(c.slow_rank < e.ranks, "slow_rank is not one of the ranks");
  } catch (const UserError& error) {
    throw UserError(fmt::format("{} ({}): {}", where, e.name, error.what()));
  }
}

void name_experiment(Experiment& e) {
  std::vector<std::string> parts;
  nlohmann::json all = e.params;  // sorted by key
  all["ranks"] = e.ranks;
  if (!e.network.link_rate.empty()) all["link_rate"] = e.network.link_rate;
  if (e.trace) all["trace"] = true;
  if (e.ranks_per_host > 0) all["ranks_per_host"] = e.ranks_per_host;
  if (e.mpi_fragment > 0) all["mpi_fragment"] = e.mpi_fragment;
  if (e.network.bottleneck_host >= 0) {
    all["bottleneck_host"] = e.network.bottleneck_host;
    all["bottleneck_rate"] = e.network.bottleneck_rate;
  }
  for (const auto& [key, value] : all.items()) parts.push_back(key + "=" + text_of(value));
  e.name = fmt::format("{}/{}", e.group, fmt::join(parts, ","));
}

bool excluded(const ojson& combination, const ojson& excludes) {
  for (const auto& rule : excludes) {
    bool all_match = true;
    for (const auto& [key, value] : rule.items()) {
      all_match = all_match && combination.contains(key) && combination[key] == value;
    }
    if (all_match) return true;
  }
  return false;
}

// Appends the cartesian product of entry's array values (in the entry's key order).
void expand_entry(const ojson& entry, const std::string& where, std::vector<ojson>* out) {
  std::vector<ojson> combos = {ojson::object()};
  for (const auto& [key, value] : entry.items()) {
    if (key == "exclude") continue;
    std::vector<ojson> next;
    if (value.is_array()) {
      require(!value.empty(), fmt::format("{}: '{}' is an empty list", where, key));
    }
    for (const auto& partial : combos) {
      for (const auto& v : value.is_array() ? value : ojson::array({value})) {
        ojson c = partial;
        c[key] = v;
        next.push_back(c);
      }
    }
    combos.swap(next);
  }
  ojson excludes = entry.value("exclude", ojson::array());
  require(excludes.is_array(), where + ": \"exclude\" must be a list of objects");
  for (auto& c : combos) {
    if (!excluded(c, excludes)) out->push_back(c);
  }
}

// The entries of a matrix document after "extends" (at most a few levels), with defaults.
void collect_entries(const std::string& path, const std::string& dir, int depth,
                     std::vector<std::pair<ojson, std::string>>* entries, Matrix* m) {
  require(depth < 5, fmt::format("matrix {}: \"extends\" goes too deep", path));
  ojson doc = read_json(path);
  require(doc.is_object() && (doc.contains("entries") || doc.contains("extends")),
          fmt::format("matrix {}: needs \"entries\" (or \"extends\")", path));
  for (const auto& [key, value] : doc.items()) {
    static const std::set<std::string> known = {
        "description", "extends", "repeat", "defaults", "entries", "until_within", "budget_s"};
    require(known.count(key) != 0, fmt::format("matrix {}: unknown key '{}'", path, key));
  }
  if (doc.contains("extends")) {
    collect_entries(resolve_path(doc["extends"].get<std::string>(), dir), dir, depth + 1, entries,
                    m);
  }
  if (doc.contains("repeat")) {
    require(doc["repeat"].is_number_integer() && doc["repeat"].get<int>() >= 1,
            fmt::format("matrix {}: \"repeat\" must be a whole number >= 1", path));
    m->repeat = doc["repeat"];
  }
  for (const char* key : {"until_within", "budget_s"}) {
    require(!doc.contains(key) || (doc[key].is_number() && doc[key].get<double>() > 0),
            fmt::format("matrix {}: \"{}\" must be a number > 0", path, key));
  }
  if (doc.contains("until_within")) m->within = doc["until_within"].get<double>() / 100;
  if (doc.contains("budget_s")) m->budget_s = doc["budget_s"];
  if (doc.contains("description")) m->description = doc["description"];
  ojson defaults = doc.value("defaults", ojson::object());
  ojson list = doc.value("entries", ojson::array());
  require(defaults.is_object() && list.is_array(),
          fmt::format("matrix {}: \"defaults\" must be an object, \"entries\" a list", path));
  for (size_t i = 0; i < list.size(); ++i) {
    std::string where = fmt::format("matrix {} entry {}", path, i + 1);
    require(list[i].is_object(), where + ": not an object");
    // Defaults fill in what an entry leaves out, where they mean something for its kind.
    std::string kind = list[i].value("kind", defaults.value("kind", "train"));
    const auto& own = binary_keys(kind);
    ojson merged = ojson::object();
    for (const auto& [key, value] : defaults.items()) {
      // A default trace is for the training runs only (the others write none).
      bool applies = (kHarnessKeys.count(key) != 0 && (key != "trace" || kind == "train")) ||
                     own.count(key) != 0;
      if (applies) merged[key] = value;
    }
    for (const auto& [key, value] : list[i].items()) merged[key] = value;
    entries->emplace_back(merged, where);
  }
}

}  // namespace

std::vector<std::string> option_args(const nlohmann::json& params) {
  std::vector<std::string> args;
  for (const auto& [key, value] : params.items()) {
    std::string flag = key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (value.is_boolean()) {
      args.push_back((value.get<bool>() ? "--" : "--no-") + flag);
    } else {
      args.insert(args.end(), {"--" + flag, text_of(value)});
    }
  }
  return args;
}

std::string Experiment::dir() const {
  std::string rest = name.substr(group.size() + 1);
  for (char& c : rest) {
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string("=,._-").find(c) == std::string::npos)
      c = '_';
  }
  return group + "/" + rest;
}

nlohmann::json Experiment::to_json() const {
  nlohmann::json j = {{"name", name},
                      {"group", group},
                      {"kind", kind},
                      {"ranks", ranks},
                      {"time_limit_s", time_limit_s},
                      {"estimate_s", estimate_s},
                      {"params", params}};
  if (!network.empty()) {
    j["network"] = {{"link_rate", network.link_rate},
                    {"bottleneck_host", network.bottleneck_host},
                    {"bottleneck_rate", network.bottleneck_rate}};
  }
  if (trace) j["trace"] = true;
  if (ranks_per_host > 0) j["ranks_per_host"] = ranks_per_host;
  if (mpi_fragment > 0) j["mpi_fragment"] = mpi_fragment;
  if (phase != "measure") j["phase"] = phase;
  return j;
}

double Matrix::estimate_s() const {
  double total = 0;
  for (const auto& e : experiments) total += e.estimate_s;
  return total;
}

Matrix load_matrix(const std::string& name_or_path, const std::string& matrices_dir) {
  Matrix m;
  m.path = resolve_path(name_or_path, matrices_dir);
  m.name = fs::path(m.path).stem().string();
  std::vector<std::pair<ojson, std::string>> entries;
  collect_entries(m.path, matrices_dir, 0, &entries, &m);
  std::set<std::string> names;
  for (const auto& [entry, where] : entries) {
    std::vector<ojson> combos;
    expand_entry(entry, where, &combos);
    for (const auto& combo : combos) {
      Experiment e = make_experiment(combo, where);
      name_experiment(e);
      check_values(e, where);
      require(names.insert(e.name).second,
              fmt::format("{}: experiment {} appears twice", where, e.name));
      m.experiments.push_back(e);
    }
  }
  require(!m.experiments.empty(), fmt::format("matrix {} has no experiments", m.path));
  return m;
}

std::string Experiment::unplaceable_on(const HostsFile& hosts) const {
  if (ranks_per_host == 0) return "";
  const int wanted = ranks / ranks_per_host;
  const auto roomy = std::count_if(hosts.hosts.begin(), hosts.hosts.end(),
                                   [&](const HostEntry& h) { return h.slots >= ranks_per_host; });
  if (roomy >= wanted) return "";
  return fmt::format("{} ranks, {} per host, need {} hosts of {} slots; {} has {}", ranks,
                     ranks_per_host, wanted, ranks_per_host, hosts.path, roomy);
}

void check_matrix_fits(const Matrix& matrix, const HostsFile& hosts) {
  for (const auto& e : matrix.experiments) {
    require(e.ranks <= hosts.total_slots(),
            fmt::format("matrix {}: {} asks for {} ranks but {} provides {} slots", matrix.name,
                        e.name, e.ranks, hosts.path, hosts.total_slots()));
  }
}

std::string matrices_table(const std::string& matrices_dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(matrices_dir)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  std::string table = "| matrix | what | experiments | estimated |\n|---|---|---|---|\n";
  for (const auto& name : names) {
    const Matrix m = load_matrix(name, matrices_dir);
    std::string description = m.description;
    std::replace(description.begin(), description.end(), '|', '/');
    table += fmt::format("| `{}` | {} | {}{} | {} |\n", name, description, m.experiments.size(),
                         m.repeat > 1 ? fmt::format(" x {} repetitions", m.repeat) : "",
                         format_duration(m.estimate_s() * m.repeat));
  }
  return table;
}

}  // namespace dtbench
