#include "record/record.h"

#include <fmt/core.h>

#include <fstream>

#include "common/error.h"
#include "common/files.h"
#include "stats/stats.h"

namespace dtbench {

void to_json(nlohmann::json& j, SyncMode m) {
  j = to_string(m);
}
void from_json(const nlohmann::json& j, SyncMode& m) {
  m = parse_mode(j.get<std::string>());
}
void to_json(nlohmann::json& j, Aggregate a) {
  j = to_string(a);
}
void from_json(const nlohmann::json& j, Aggregate& a) {
  a = parse_aggregate(j.get<std::string>());
}

namespace {

// Every setting a record keeps, by its key: one flat object, the method's options beside the
// others. `setting(key, field)` is called for each.
template <class Config, class Visit>
void each_setting(Config& c, Visit&& setting) {
  setting("model", c.model);
  setting("dataset", c.dataset);
  setting("data_dir", c.data_dir);
  setting("epochs", c.epochs);
  setting("train_limit", c.train_limit);
  setting("max_iters", c.max_iters);
  setting("global_batch", c.global_batch);
  setting("lr", c.lr);
  setting("momentum", c.momentum);
  setting("weight_decay", c.weight_decay);
  setting("threads", c.threads);
  setting("seed", c.seed);
  setting("log_interval", c.log_interval);
  setting("eval", c.eval);
  setting("eval_limit", c.eval_limit);
  setting("eval_batch", c.eval_batch);
  setting("out", c.out);
  setting("trace", c.trace);
  setting("world_size", c.world_size);
  setting("rank", c.rank);
  setting("master", c.master);
  setting("sync", c.sync);
  setting("backend", c.backend);
  auto& o = c.sync_options;
  setting("aggregate", o.aggregate);
  setting("mode", o.mode);
  each_sync_option(o,
                   [&setting](const OptionSpec& spec, auto& value) { setting(spec.key, value); });
  setting("timeout_s", c.timeout_s);
  setting("slow_rank", c.slow_rank);
  setting("slow_ms", c.slow_ms);
  setting("fault", c.fault);
}

}  // namespace

void to_json(nlohmann::json& j, const TrainConfig& c) {
  j = nlohmann::json::object();
  each_setting(c, [&j](const char* key, const auto& value) { j[key] = value; });
}

// A setting a dtbench.run/1 record lacks reads as its default (record_from_json requires every
// one of a dtbench.run/2 record).
void from_json(const nlohmann::json& j, TrainConfig& c) {
  c = TrainConfig{};
  each_setting(c, [&j](const char* key, auto& value) {
    if (auto it = j.find(key); it != j.end()) it->get_to(value);
  });
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Evaluation, epoch, iterations, loss, correct, total, accuracy)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ResourceUsage, wall_s, user_s, sys_s, cpu_utilisation,
                                   peak_rss_bytes, cores)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Summary, n, mean, median, p95, stdev, min, max, ci95_low,
                                   ci95_high)

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClockOffset, offset_s, uncertainty_s, drift_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LinkSample, a, b, bytes, seconds)

void to_json(nlohmann::json& j, const RankUsage& r) {
  j = nlohmann::json(r.usage);
  j["rank"] = r.rank;
  j["host"] = r.host;
  j["payload_sent_bytes"] = r.payload_sent_bytes;
  j["payload_received_bytes"] = r.payload_received_bytes;
  j["nic"] = r.nic;
  j["iteration_s"] = r.iteration_s;
  j["phase_s"] = nlohmann::json::object();
  for (size_t p = 0; p < kPhaseCount; ++p) j["phase_s"][kPhaseNames[p]] = r.phase_s[p];
  j["iteration_minor_faults"] = r.iteration_minor_faults;
  j["clock"] = r.clock;
  j["threads"] = r.threads.to_json();
}
void from_json(const nlohmann::json& j, RankUsage& r) {
  r.usage = j.get<ResourceUsage>();
  j.at("rank").get_to(r.rank);
  j.at("host").get_to(r.host);
  j.at("payload_sent_bytes").get_to(r.payload_sent_bytes);
  j.at("payload_received_bytes").get_to(r.payload_received_bytes);
  r.nic = j.at("nic");
  j.at("iteration_s").get_to(r.iteration_s);
  r.iteration_minor_faults = j.value("iteration_minor_faults", std::vector<int64_t>{});
  const nlohmann::json phases = j.value("phase_s", nlohmann::json::object());
  for (size_t p = 0; p < kPhaseCount; ++p) {
    r.phase_s[p] = phases.value(kPhaseNames[p], std::vector<double>{});
  }
  r.clock = j.value("clock", ClockOffset{});
  r.threads = ThreadShare::from_json(j.value("threads", nlohmann::json::object()));
}

void IterationLog::add(int64_t epoch_number, int64_t step_number, double loss_value,
                       const IterationTimes& times) {
  epoch.push_back(epoch_number);
  step.push_back(step_number);
  loss.push_back(loss_value);
  for (size_t p = 0; p < kPhaseCount; ++p) phase_s[p].push_back(times.phase_s[p]);
  total_s.push_back(times.total_s);
}

namespace {

nlohmann::json iterations_to_json(const IterationLog& log) {
  nlohmann::json j = {{"epoch", log.epoch}, {"step", log.step}, {"loss", log.loss}};
  for (size_t p = 0; p < kPhaseCount; ++p) j[std::string(kPhaseNames[p]) + "_s"] = log.phase_s[p];
  j["total_s"] = log.total_s;
  return j;
}

IterationLog iterations_from_json(const nlohmann::json& j) {
  IterationLog log;
  j.at("epoch").get_to(log.epoch);
  j.at("step").get_to(log.step);
  j.at("loss").get_to(log.loss);
  for (size_t p = 0; p < kPhaseCount; ++p) {
    j.at(std::string(kPhaseNames[p]) + "_s").get_to(log.phase_s[p]);
  }
  j.at("total_s").get_to(log.total_s);
  size_t n = log.total_s.size();
  bool aligned = log.epoch.size() == n && log.step.size() == n && log.loss.size() == n;
  for (const auto& phase : log.phase_s) aligned = aligned && phase.size() == n;
  require(aligned, "iterations: the per-iteration arrays differ in length");
  return log;
}

// Recomputed from the raw samples on every write, so it can never disagree with them.
nlohmann::json summary_of(const RunRecord& r) {
  const auto& it = r.iterations;
  nlohmann::json phases;
  for (size_t p = 0; p < kPhaseCount; ++p) {
    phases[kPhaseNames[p]] = summarize(window(it.phase_s[p], kTimedFirst, kTimedLast)).mean;
  }
  nlohmann::json j = {
      {"timed_window", {{"first", kTimedFirst}, {"last", kTimedLast}}},
      {"iteration_s", summarize(window(it.total_s, kTimedFirst, kTimedLast))},
      {"phase_mean_s", phases},
      {"iterations", it.size()},
      {"final_loss", it.loss.empty() ? nlohmann::json() : nlohmann::json(it.loss.back())},
      {"final_accuracy",
       r.evaluations.empty() ? nlohmann::json() : nlohmann::json(r.evaluations.back().accuracy)},
  };
  return j;
}

nlohmann::json plan_inputs_to_json(const Timeline& t) {
  if (t.ready_s.empty()) return nullptr;
  return {{"latency_s", t.latency_s}, {"bytes_per_s", t.bytes_per_s}, {"ready_s", t.ready_s}};
}

}  // namespace

nlohmann::json to_json(const RunRecord& r) {
  return {
      {"schema", kRecordSchema},
      {"config", r.config},
      {"system", r.system},
      {"threads", r.threads},
      {"bucket_bytes", r.bucket_bytes},
      {"plan_inputs", plan_inputs_to_json(r.plan_inputs)},
      {"iterations", iterations_to_json(r.iterations)},
      {"evaluations", r.evaluations},
      {"ranks", r.ranks},
      {"links", r.links},
      {"summary", summary_of(r)},
  };
}

namespace {

// UserError naming the first field a dtbench.run/2 record lacks: every field, every setting and
// each rank's own phases, faults and threads (a rank's clock offsets are absent where a run did
// not align clocks: the Python DDP baseline).
void require_every_field(const nlohmann::json& j) {
  for (const char* key : {"config", "system", "threads", "bucket_bytes", "plan_inputs",
                          "iterations", "evaluations", "ranks", "links"}) {
    require(j.contains(key), fmt::format("a {} record without \"{}\"", kRecordSchema, key));
  }
  const TrainConfig defaults;
  each_setting(defaults, [&j](const char* key, const auto&) {
    require(j["config"].contains(key),
            fmt::format("a {} record without the setting \"{}\"", kRecordSchema, key));
  });
  for (const auto& rank : j["ranks"]) {
    for (const char* key : {"phase_s", "iteration_minor_faults", "threads"}) {
      require(rank.contains(key),
              fmt::format("a {} record with a rank without \"{}\"", kRecordSchema, key));
    }
  }
}

}  // namespace

RunRecord record_from_json(const nlohmann::json& j) {
  try {
    std::string schema = j.at("schema").get<std::string>();
    require(schema == kRecordSchema || schema == kFirstRecordSchema,
            fmt::format("schema is '{}', expected '{}' (or '{}')", schema, kRecordSchema,
                        kFirstRecordSchema));
    if (schema == kRecordSchema) require_every_field(j);
    RunRecord r;
    j.at("config").get_to(r.config);
    r.system = j.at("system");
    j.at("threads").get_to(r.threads);
    r.bucket_bytes = j.value("bucket_bytes", std::vector<int64_t>{});
    if (j.contains("plan_inputs") && !j["plan_inputs"].is_null()) {
      const auto& p = j["plan_inputs"];
      p.at("latency_s").get_to(r.plan_inputs.latency_s);
      p.at("bytes_per_s").get_to(r.plan_inputs.bytes_per_s);
      p.at("ready_s").get_to(r.plan_inputs.ready_s);
    }
    r.iterations = iterations_from_json(j.at("iterations"));
    j.at("evaluations").get_to(r.evaluations);
    j.at("ranks").get_to(r.ranks);
    r.links = j.value("links", std::vector<LinkSample>{});
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(fmt::format("not a valid {} record: {}", kRecordSchema, e.what()));
  }
}

void write_record(const std::string& path, const RunRecord& record) {
  write_file_atomically(path, to_json(record).dump(1) + "\n");
}

RunRecord read_record(const std::string& path) {
  std::ifstream in(path);
  require(in.good(), fmt::format("{}: cannot open", path));
  try {
    return record_from_json(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {
    throw UserError(fmt::format("{}: not JSON: {}", path, e.what()));
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace dtbench
