#pragma once
// Run selection, shared by the figure builders and predict: which runs of a system answer a
// question, their repetitions and timed windows, and how they are labelled.
#include <map>
#include <string>
#include <vector>

#include "report/read/results.h"
#include "report/read/table.h"

namespace dtbench {
namespace report {

// The iteration time of an experiment over its repetitions: each repetition's mean of the
// timed window, their median (the headline), their spread, and the within-run 95% interval of
// the representative repetition. low/high: the interval a comparison is judged by: the spread
// with two repetitions or more; with one, the within-run interval widened to the spread between
// runs of one configuration on its workload (two runs are told apart only when further apart
// than that).
struct Repeated {
  int reps = 0, noisy = 0;
  double median_s = 0, min_s = 0, max_s = 0, ci95_low_s = 0, ci95_high_s = 0;
  double low_s = 0, high_s = 0;
  // With one repetition: the spread between runs of one configuration on its workload and
  // backend (run_to_run_spread) that low..high was widened to; 0 when none ran twice.
  double run_spread = 0;
  std::map<int, double> by_round;  // repetition -> its mean
};

// Runs of group with the model that has most runs in it (VGG-11 on a tie), in load order, one
// per experiment: the repetition with the median mean iteration time.
std::vector<const TrainRun*> runs_of(const SystemResults& s, const std::string& group,
                                     std::string* model = nullptr);
// Every experiment of group with this model, one run each as runs_of.
std::vector<const TrainRun*> runs_with(const SystemResults& s, const std::string& group,
                                       const std::string& model);
// Every repetition of run's experiment, by repetition.
std::vector<const TrainRun*> repetitions(const SystemResults& s, const TrainRun& run);
// The mean over these repetitions of each one's mean iteration time (the timed window); NaN for
// none.
double mean_of_repetitions(const std::vector<const TrainRun*>& reps);
Repeated repeated_time(const SystemResults& s, const TrainRun& run);
// Median over the rounds both ran in of a's mean / b's mean; NaN without a common round.
double ratio_within_rounds(const Repeated& a, const Repeated& b);
// What a run trains and on what, apart from the method that synchronises it (model, data,
// ranks, batch, threads, the slow rank and the bottleneck link): two runs alike in it are two
// methods for one job.
std::string workload_of(const TrainRun& r);
// workload_of and the backend: the runs one spread between runs of a configuration speaks for.
std::string noise_key(const TrainRun& r);
// Its configuration with what its timed iterations do not depend on left out (where it
// writes, its evaluation, how long it trains, how often it logs): runs with one key are runs
// of one configuration.
std::string timing_key(const TrainRun& r);
// How far apart runs of one configuration fell on run's workload and backend: over its
// configurations that ran more than once (every repetition of every experiment a run), the
// largest slowest / fastest - 1 of their timed means; 0 when none ran twice.
double run_to_run_spread(const SystemResults& s, const TrainRun& run);
// Whether the two intervals (low..high) do not overlap.
bool stands_out(const Repeated& a, const Repeated& b);
// A parameter as text with the trainer's default when absent.
std::string param(const TrainRun& r, const std::string& key);
// "allreduce" or "allreduce/gloo" when the backend is not mpi.
std::string method_label(const TrainRun& r);
// A strategy's default mode, from the catalogue of methods ("overlap" for Python DDP).
std::string default_mode(const std::string& sync);
// The strategy, with its mode when that is not the strategy's default: "allreduce (overlap)".
std::string method_with_mode(const TrainRun& r);
// method_label with the mode when it is not the strategy's default: "allreduce (overlap)/gloo".
std::string engine_label(const TrainRun& r);
// The timed window (iterations 1..39) of the iteration times.
std::vector<double> timed(const TrainRun& r);
// Mean of a phase over the timed window.
double phase_mean(const TrainRun& r, size_t phase);
double final_accuracy(const TrainRun& r);  // NaN without evaluations
// Whether any of the runs evaluated the model on the test set ("1" or "0": a figure's
// `evaluated` label, which draws an empty accuracy panel for runs with eval=false).
std::string evaluated_label(const std::vector<const TrainRun*>& runs);
// Appends r's training loss per iteration to curves (columns: label, iteration, loss).
void add_loss_curve(Table& curves, const std::string& label, const TrainRun& r);

}  // namespace report
}  // namespace dtbench
