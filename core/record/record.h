#pragma once
// The result record of one run, schema "dtbench.run/2" (docs/result-record.md). It keeps the
// raw per-iteration samples; the "summary" written with it is recomputed from them.
#include <nlohmann/json.hpp>

#include <array>
#include <string>
#include <vector>

#include "catalogue/methods.h"
#include "common/phase_timer.h"
#include "common/thread_share.h"
#include "common/timed_window.h"
#include "record/config.h"
#include "record/resource_usage.h"

namespace dtbench {

inline constexpr const char* kRecordSchema = "dtbench.run/2";
// The schema before: the same fields, added one after another while its name stayed, so a
// record of it may lack any of those docs/result-record.md lists; each reads as its default.
inline constexpr const char* kFirstRecordSchema = "dtbench.run/1";

struct IterationLog {
  std::vector<int64_t> epoch;  // 1-based
  std::vector<int64_t> step;   // 1-based within the epoch
  std::vector<double> loss;    // the global training loss of the iteration
  std::array<std::vector<double>, kPhaseCount> phase_s;
  std::vector<double> total_s;

  void add(int64_t epoch_number, int64_t step_number, double loss_value,
           const IterationTimes& times);
  size_t size() const { return total_s.size(); }
};

struct Evaluation {
  int64_t epoch = 0;
  int64_t iterations = 0;  // training iterations done when it was taken
  double loss = 0;         // mean cross-entropy over the evaluated test samples
  int64_t correct = 0;
  int64_t total = 0;
  double accuracy = 0;  // correct / total
};

// This rank's steady clock minus rank 0's, measured before the first iteration by ping-pongs
// with rank 0 (the one with the shortest round trip): the offset, half that round trip (the
// true offset lies within it), and how much the offset had moved by the last iteration (the
// clocks' drift). Zeros for rank 0, and where clocks were not aligned (none in the record).
struct ClockOffset {
  double offset_s = 0, uncertainty_s = 0, drift_s = 0;
};

// Ranks a and b, on different hosts, exchanged `bytes` each way before the first iteration:
// the shortest of its round trips, a to b and back (rate: 2 * bytes / seconds).
struct LinkSample {
  int a = 0, b = 0;
  int64_t bytes = 0;
  double seconds = 0;
};

struct RankUsage {
  int rank = 0;
  std::string host;
  ResourceUsage usage;
  int64_t payload_sent_bytes = 0;  // gradient synchronisation only, as the Communicator counts
  int64_t payload_received_bytes = 0;
  nlohmann::json nic = nlohmann::json::object();  // {"eth0": {"sent_bytes", "received_bytes"}}
  std::vector<double> iteration_s;                // this rank's own iteration times
  // This rank's own phase times per iteration (kPhaseNames order); empty in a
  // dtbench.run/1 record that lacks them.
  std::array<std::vector<double>, kPhaseCount> phase_s;
  // Minor page faults of this rank's process in each iteration: memory the iteration had to
  // fault in afresh (what the malloc setting, system.malloc, changes). Empty in a dtbench.run/1
  // record that lacks them.
  std::vector<int64_t> iteration_minor_faults;
  ClockOffset clock;
  ThreadShare threads;  // this rank's intra-op threads and where the count came from
};

struct RunRecord {
  TrainConfig config;
  nlohmann::json system;
  int threads = 0;                    // what libtorch actually used
  std::vector<int64_t> bucket_bytes;  // the strategy's buckets at the end, in launch order
  // What a strategy that plans from time (bucketed) planned from: the link probe and the first
  // iteration's gradient-ready times (model order, the latest over ranks). Empty ready_s: none.
  Timeline plan_inputs;
  IterationLog iterations;
  std::vector<Evaluation> evaluations;
  std::vector<RankUsage> ranks;
  // The links between the ranks' hosts, each pair of neighbours in rank order (a ring) on
  // different hosts once; empty when every rank shares one host, and in a dtbench.run/1
  // record that lacks them.
  std::vector<LinkSample> links;
};

// The config as one flat object of settings (the method's options beside the others).
void to_json(nlohmann::json& j, const TrainConfig& c);
void from_json(const nlohmann::json& j, TrainConfig& c);
void to_json(nlohmann::json& j, const RankUsage& r);
void from_json(const nlohmann::json& j, RankUsage& r);

nlohmann::json to_json(const RunRecord& record);
// Throws UserError naming what is missing or of the wrong schema.
RunRecord record_from_json(const nlohmann::json& j);

void write_record(const std::string& path, const RunRecord& record);
RunRecord read_record(const std::string& path);

}  // namespace dtbench
