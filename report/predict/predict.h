#pragma once
// `dtbench predict`: the cost model (model/iteration_model.h) against the measurements of one
// system's results (docs/model.md). The model's inputs come from the same results
// (model_inputs.h); each training experiment is then predicted phase by phase.
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/iteration_model.h"
#include "report/predict/model_inputs.h"
#include "report/read/ranking.h"
#include "report/read/results.h"

namespace dtbench {

struct PredictedExperiment {
  const TrainRun* run = nullptr;  // the representative repetition
  // The first repetition: its trace (trace_of) is the one read, as the diagnosis reads it.
  const TrainRun* traced = nullptr;
  std::string label;  // "allreduce (overlap)/gloo, bucket 5 MB"
  int reps = 0;
  // The iteration time as the record keeps it (the slowest rank's): the mean over the
  // repetitions of each one's mean of iterations 1..39.
  double measured_s = 0;
  double low_s = 0, high_s = 0;  // the interval the measurement is judged by (report::Repeated)
  model::Phases measured;        // the phases' means over the ranks, each the same mean
  model::Phases predicted;       // NaN total when not modelled
  // The 95th percentile iteration: over the timed iterations of every repetition, and as the
  // mean predicted plus the compute's spread (ComputeProfile::spread_p95_s), or times the other
  // methods' ratio (report/predict/p95.h).
  double measured_p95_s = 0, predicted_p95_s = 0;
  double p95_error() const { return predicted_p95_s / measured_p95_s - 1; }
  // bucketed engines: the best iteration any bucket plan could reach, with and without the
  // CPU communication takes from backward (model::best_iteration_s)
  double best_s = 0, best_without_cpu_s = 0;
  // A lossy method (held apart from the target), and what its prediction rests on: the sweep
  // of its hook (compressing and its CPU included), or what it sends.
  bool lossy = false;
  std::string lossy_basis;
  double error() const { return predicted.total_s() / measured_s - 1; }
  // The phase whose prediction is furthest from the measurement, and by how much (s).
  std::string worst_phase() const;
  double worst_phase_difference_s() const;
  // Why, where the worst phase is sync and its trace holds communication: "its traced
  // communication, waits for other ranks included, took 4.413 s per iteration and rank against
  // the model's 3.609 s (+22%): the residual is in the communication and its waits, not in how
  // much of it was hidden"; within 10%, that the residual is in the wait for the slowest rank
  // or the share hidden; "" otherwise.
  std::string communication_text() const;
};

// Predictions only: what the runs' traces measured is their RunTrace (report/traces/run_trace.h).
struct Prediction {
  std::string label;               // the system's
  std::vector<std::string> notes;  // the inputs used, and what was not predicted and why
  std::vector<PredictedExperiment> rows;
  // How the p95 was predicted: -1, every row as its mean plus the compute's spread; otherwise
  // from the other methods' ratio (p95_from_other_methods), this many rows without one, the
  // ratio measured on p95_ratio_ranks ranks (0: each row's own).
  int p95_without_others = -1;
  int p95_ratio_ranks = 0;
};

// The model's method and link for a run like `run`: its config, its record's bucket plan (none:
// DDP's plan from its cap), the sweeps and CPU estimates of s; what predict_system predicts
// each experiment from, and the study its unmeasured cells (candidates.h). found = false and
// why when an input is missing; note() is told where each input came from.
struct MethodSetup {
  bool found = false;
  std::string why;
  model::Method method;
  LinkEstimate link;
};
MethodSetup method_setup(const SystemResults& s, const TrainRun& run, const std::string& label,
                         const std::function<void(const std::string&)>& note);

// A method whose buckets go several in flight (model::Method::in_flight: the bucketed engines over
// Gloo): where a rested sweep of its backend's allreduce on swept_ranks measured what a rest
// saves (rest_saving), its first bucket saves that instead of the links' token bucket's credit
// (model::Method::rest_saves_s), and note() says so. Whether it did.
bool saves_what_a_rest_saved(const SystemResults& s, model::Method& method, int swept_ranks,
                             const std::function<void(const std::string&)>& note);

// The same method: where a sweep of pairs in flight on swept_ranks (in_flight_fit, through the
// link fitted there) fitted the shares of a latency that wait for the other's and go before its
// bytes, its buckets take them (model::Method::in_flight_shares), and note() says so. Whether
// they did.
bool takes_what_pairs_fitted(const SystemResults& s, model::Method& method, int swept_ranks,
                             const model::Link& link,
                             const std::function<void(const std::string&)>& note);

// The prediction for a run's repetitions, each with the bucket plan it ran (bucketed times its
// plan, which can differ from one repetition to the next): their mean, phase by phase.
model::Phases predicted_for_repetitions(const SystemResults& s, const TrainRun& run,
                                        const model::ComputeProfile& compute,
                                        const model::Method& method, const model::Link& link);

// The method of a run as its config and record say (its strategy, ranks, options, timed
// iterations and buckets), without the model's inputs.
model::Method method_of(const TrainRun& run);

// A row for `run` with its measurement (the mean over its repetitions, each phase, its
// interval), not yet predicted.
PredictedExperiment measured_row(const SystemResults& s, const TrainRun& run,
                                 const std::string& label);

// Predicts every training experiment of s (warnings and the unmodelled are named in notes).
Prediction predict_system(const SystemResults& s);

// The same, made once per system and kept with it: what the diagnosis, figure 19 and
// `dtbench predict` read.
const Prediction& prediction_of(const SystemResults& s);

// The model judged as the best predictors are (dPRO: under 5% error in most cases; Proteus: 3%
// mean error, the ranking of strategies preserved): over every predicted experiment, the mean
// and the largest |error|, and Kendall's tau-b between the measured and the predicted order,
// experiments whose measurements are within each other's noise counting as tied.
struct ModelAccuracy {
  int experiments = 0;
  double mean_abs_error = 0, largest_abs_error = 0;
  const PredictedExperiment* largest = nullptr;
  RankAgreement ranking;
  // Of the pairs counted as tied, those whose intervals do not overlap but which are no further
  // apart than runs of one configuration of their workload were (alike_spread_by_workload), and
  // the largest such spread.
  int tied_by_alike = 0;
  double alike_spread = 0;
  // Of the pairs the model orders the other way, those it predicts within kClose of each other
  // (it does not tell them apart), and the largest measured difference among them.
  int swapped_close = 0;
  double swapped_close_apart_s = 0;
  static constexpr double kClose = 0.01;
  static constexpr double kMeanTarget = 0.05, kLargestTarget = 0.10;
  bool within_targets() const {
    return mean_abs_error <= kMeanTarget && largest_abs_error <= kLargestTarget;
  }
};
ModelAccuracy accuracy_of(const Prediction& p);

// Runs of one configuration in different groups of a directory (the accuracy phase trains the
// measured methods again, an epoch at a time, for their loss): the model predicts them alike,
// so none of its predictions is nearer to both the fastest and the slowest of them than
// (high - low) / (high + low), a floor under the largest error. The most apart of them.
struct AlikeRuns {
  const PredictedExperiment* low = nullptr;
  const PredictedExperiment* high = nullptr;
  int runs = 0;  // of that configuration
  double floor() const {
    return low == nullptr
               ? 0
               : (high->measured_s - low->measured_s) / (high->measured_s + low->measured_s);
  }
};
AlikeRuns most_apart_alike(const Prediction& p);
// The noise between runs that each workload (model, ranks, batch, ...) showed over each backend
// (noise_key): over its configurations that ran more than once, the largest slowest / fastest - 1.
// Two methods on that workload and backend no further apart than this are within the measured
// noise, whatever each run's own interval says (study-local-epyc-vm: LeNet-5's blocking
// allreduce over MPI took 0.0054 s in one group and 0.0066 s in another, each run's 95%
// interval a few percent wide). A pair over two backends takes the smaller of their two.
std::string noise_key(const PredictedExperiment& r);
std::map<std::string, double> alike_spread_by_workload(const Prediction& p);
// Those two runs and the floor, as predict and figure 19 say it; "" when no runs are alike.
std::string alike_sentence(const Prediction& p);

// How far the model is validated on a system: its largest predicted runs (the most ranks, then
// the most hosts they ran on) and its error on those. ranks 0: nothing predicted.
struct ValidatedRange {
  int ranks = 0, hosts = 0;
  int experiments = 0;  // predicted runs of that size
  double mean_abs_error = 0, largest_abs_error = 0;
  // "4 ranks on 4 hosts, where the model's error is 21.9% on average, 182.5% at most (23 runs)"
  std::string text() const;
};
ValidatedRange validated_range(const Prediction& p);

// Why the order is not kept, where the model does not separate the pairs: "9 of the 11 pairs are
// predicted within 1% of each other (the model does not tell them apart), measured up to 0.170 s
// apart"; "" when none is.
std::string swapped_text(const ModelAccuracy& a);

// Per traced experiment: its communication per iteration and rank, the share hidden behind
// compute and what is exposed (overlap.h), and the rank the others wait for (stragglers.h); ""
// when none is traced.
std::string overlap_text(const Prediction& p);

// The model's accuracy in the one wording every reader uses (dtbench predict, the diagnosis,
// figure 19): its errors against the targets ("over 16 predicted experiments, mean |error| 3.3%,
// largest 9.4% (...): within the targets (...)"), and whether it keeps the measured order
// ("Kendall's tau-b ...: the model orders A and B the other way (...)"); "" with no experiment.
std::string errors_sentence(const ModelAccuracy& a);
std::string ranking_sentence(const Prediction& p, const ModelAccuracy& a);

// The accuracy in a few lines: the two sentences, then each pair the model orders the other way
// with its times.
std::string accuracy_text(const Prediction& p, const ModelAccuracy& a);

// How far a bucketed experiment is from the best any bucket plan could reach, as a sentence
// (empty for the others).
std::string best_text(const PredictedExperiment& r);

// Each row's measured and predicted iteration time, its signed error, its p95 measured and
// predicted, and its phases, as a table.
std::string rows_text(const Prediction& p);

// The p95 iteration predicted: "the 95th percentile iteration, predicted as the mean times the
// p95-to-mean ratio the other methods of its workload and backend measured ...: mean |error|
// 6.1%, largest -21.0% (gather_scatter), over 10 experiments"; "" with no row.
std::string p95_sentence(const Prediction& p);

// What dtbench predict prints for a system: its inputs and link efficiency, then per experiment
// measured and predicted iteration time, the signed error, each phase measured/predicted, and
// the worst phase; the traced overlap and the accuracy.
std::string prediction_text(const SystemResults& s);

}  // namespace dtbench
