#pragma once
// What the figure builders share: one builder per figure (report/figures/<id>.cpp, beside its
// gnuplot script <id>.gp), listed by report/document/figure_list.cpp, and the helpers more than one
// of them uses.
#include <string>
#include <vector>

#include "report/document/figures.h"

namespace dtbench::report {

using Builder = FigureData(const SystemResults&, const std::vector<SystemResults>&);
Builder iteration_time, breakdown, collectives, bytes_moved, cpu_memory, bucket_sweep;
Builder loss_accuracy, batch_size, epochs, modes, aggregate, bottleneck, scaling, allocator;
Builder overlap_engines, cross_hardware, compression_time, compression_accuracy;
Builder model_vs_measurement, rank_pace, extrapolation;

double mb(double bytes);  // bytes -> MB (1e6)

// "vgg11, 4 ranks, global batch 256"
std::string model_caption(const std::string& model, const TrainRun& r);

bool is_python_ddp(const TrainRun& r);

// The fastest and slowest of rows (one backend's methods, modes or bucket sizes: `what`), and
// whether that order stands out of the noise: where "With allreduce" gives "With allreduce,
// overlap was the fastest mode (...)".
std::string ranking_sentence(const std::string& where, const std::string& what,
                             const std::vector<std::pair<std::string, Repeated>>& rows);

// Figure 1's table, caption and sentences for the runs of one matrix group.
FigureData iteration_times_of(const SystemResults& s, const std::string& group);

double test_loss(const TrainRun& r);  // the last evaluation's; NaN without one

// Rows sorted by a column of numbers.
void sort_numeric(Table& t, const std::string& column);

std::string percent(double fraction);  // 0.123 -> "12.3%"

// Where test accuracy was highest and lowest, naming the setting (`what`) held in `column`.
void range_sentence(FigureData& f, const std::string& column, const std::string& what);

double parse_rate_mbit(const std::string& rate);  // "100mbit" -> 100; NaN for ""

}  // namespace dtbench::report
