#pragma once
// The builders behind figure_registry(), one per figure (figures_*.cpp).
#include "report/figures.h"

namespace dtbench::report {

using Builder = FigureData(const SystemResults&, const std::vector<SystemResults>&);
Builder iteration_time, breakdown, bytes_moved, cpu_memory, loss_accuracy, scaling;
Builder bucket_sweep, batch_size, epochs, modes, aggregate, bottleneck;
Builder collectives, allocator, overlap_engines, cross_hardware;

double parse_rate_mbit(const std::string& rate);  // "100mbit" -> 100; NaN for ""

}  // namespace dtbench::report
