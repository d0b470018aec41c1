#include "report/predict/candidates.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "catalogue/methods.h"
#include "model/iteration_model.h"
#include "plan/bucket_plan.h"
#include "report/predict/model_inputs.h"
#include "report/predict/predict.h"
#include "report/read/select.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

// A run of s like c (model, batch, ranks) whose record the candidate borrows: its threads,
// cores and timed window, which c would have too on this system.
const TrainRun* like(const SystemResults& s, const TrainConfig& c) {
  for (const TrainRun& r : s.runs) {
    const TrainConfig& o = r.record.config;
    if (r.kind == "train" && o.model == c.model && o.global_batch == c.global_batch &&
        o.world_size == c.world_size && o.slow_rank < 0) {
      return &r;
    }
  }
  return nullptr;
}

// The buckets bucketed's engine would cut for c, in launch order: from the gradients' ready
// times and the link where it plans from its start-up timeline (overlap, no hook), else its
// plan before anything is measured; none (DDP's plan, the model's own) for the other engines.
std::vector<double> planned_buckets(const model::ComputeProfile& p, const TrainConfig& c,
                                    const model::Link& link) {
  if (find_method(c.sync).engine != Engine::bucketed &&
      find_method(c.sync).engine != Engine::hooked)
    return {};
  // PyTorch's Reducer cuts DDP's plan, as the model does; it records none (bucket_bytes).
  if (c.sync == "c10d_ddp") return {};
  std::vector<int64_t> bytes;  // in backward's order
  std::vector<double> ready;
  for (size_t i = p.tensor_bytes.size(); i-- > 0;) {
    bytes.push_back(static_cast<int64_t>(p.tensor_bytes[i]));
    ready.push_back(i < p.ready_s.size() ? p.ready_s[i] : -1);
  }
  const int64_t cap = c.sync_options.bucket_bytes();
  const bool timed = find_method(c.sync).engine == Engine::bucketed &&
                     c.sync_options.mode == SyncMode::overlap && c.world_size > 1;
  const BucketPlan plan =
      timed ? plan_timed_buckets(bytes, ready, {link.latency_s, link.bytes_per_s}, cap)
            : plan_buckets(bytes, cap, std::min(cap, kFirstBucketBytes));
  std::vector<double> sizes;
  for (int64_t b : bucket_sizes(plan, bytes)) sizes.push_back(static_cast<double>(b));
  return sizes;
}

}  // namespace

CandidateCell predict_cell(const SystemResults& s, const TrainConfig& c, const std::string& own) {
  CandidateCell cell;
  cell.predicted_s = std::numeric_limits<double>::quiet_NaN();
  cell.expected_s = cell.predicted_s;
  if (c.sync == "python_ddp") {
    TrainConfig reducer = c;
    reducer.sync = "c10d_ddp";
    reducer.backend = "gloo";
    cell.expected_s = predict_cell(s, reducer).predicted_s;
    cell.basis = "python_ddp is not modelled";
    return cell;
  }
  if (!model::modelled(c.sync)) {
    cell.basis = fmt::format("{} is not modelled", c.sync);
    return cell;
  }
  const TrainRun* model_run = like(s, c);
  if (model_run == nullptr) {
    cell.basis =
        fmt::format("no run of {} at batch {} on {} ranks", c.model, c.global_batch, c.world_size);
    return cell;
  }
  const MeasuredCompute compute = with_overlap_wait(s, c, profile_for(s, *model_run), own);
  if (!compute.found) {
    cell.basis = compute.source;
    return cell;
  }
  TrainRun candidate = *model_run;
  candidate.record.config = c;
  candidate.record.bucket_bytes.clear();  // planned below, as its engine would
  candidate.bottleneck_rate.clear();
  candidate.bottleneck_host = -1;
  const MethodSetup setup = method_setup(s, candidate, c.sync, [](const std::string&) {});
  if (!setup.found) {
    cell.basis = setup.why;
    return cell;
  }
  model::Method method = setup.method;
  method.bucket_bytes = planned_buckets(compute.profile, c, setup.link.link);
  cell.phases = model::predict(compute.profile, method, setup.link.link);
  cell.spread_p95_s = compute.profile.spread_p95_s;
  cell.predicted_s = cell.phases.total_s();
  cell.expected_s = cell.predicted_s;
  cell.basis = fmt::format("{}; {} link: {}", compute.source, c.backend, setup.link.source);
  return cell;
}

std::vector<CandidateCell> order_candidates(const SystemResults& s,
                                            const std::vector<TrainConfig>& candidates,
                                            size_t best) {
  std::vector<CandidateCell> predicted, unknown;
  for (size_t i = 0; i < candidates.size(); ++i) {
    CandidateCell cell = predict_cell(s, candidates[i]);
    cell.index = i;
    (std::isnan(cell.predicted_s) ? unknown : predicted).push_back(cell);
  }
  std::stable_sort(
      predicted.begin(), predicted.end(),
      [](const CandidateCell& a, const CandidateCell& b) { return a.predicted_s < b.predicted_s; });
  const size_t first = std::min(best, predicted.size());
  std::vector<CandidateCell> order(predicted.begin(), predicted.begin() + first);
  order.insert(order.end(), unknown.begin(), unknown.end());
  order.insert(order.end(), predicted.begin() + first, predicted.end());
  return order;
}

std::vector<VerifiedCell> verified_cells(const SystemResults& s) {
  std::vector<VerifiedCell> cells;
  for (const std::string& dir : s.dirs) {
    std::ifstream in(fs::path(dir) / "verify.json");
    if (!in) continue;
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (!doc.is_object() || !doc.contains("cells") || !doc["cells"].is_array()) continue;
    for (const auto& c : doc["cells"]) {
      VerifiedCell cell;
      cell.experiment = c.value("experiment", "");
      cell.predicted_s = c.contains("predicted_s") && c["predicted_s"].is_number()
                             ? c["predicted_s"].get<double>()
                             : std::numeric_limits<double>::quiet_NaN();
      cell.basis = c.value("basis", "");
      const fs::path where = fs::path(dir) / c.value("dir", "");
      const auto run = std::find_if(s.runs.begin(), s.runs.end(), [&](const TrainRun& r) {
        return fs::path(r.dir).parent_path() == where;
      });
      const std::vector<const TrainRun*> reps =
          run == s.runs.end() ? std::vector<const TrainRun*>{} : report::repetitions(s, *run);
      cell.reps = static_cast<int>(reps.size());
      cell.measured_s = report::mean_of_repetitions(reps);
      cells.push_back(cell);
    }
  }
  return cells;
}

}  // namespace dtbench
