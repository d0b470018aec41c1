#include "report/predict/what_if_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <numeric>
#include <stdexcept>

#include "common/error.h"
#include "common/files.h"
#include "common/process.h"
#include "model/parameter_shapes.h"
#include "model/what_if.h"
#include "report/predict/extrapolation.h"
#include "report/predict/model_inputs.h"
#include "report/predict/predict.h"
#include "report/read/table.h"

namespace dtbench {
namespace {

namespace fs = std::filesystem;

std::vector<model::Parameter> parameters_of(const WhatIfOptions& o) {
  auto builtin = model::builtin_parameters(o.model);
  if (!builtin.empty()) return builtin;
  std::string path = o.model;
  if (!fs::exists(path)) path = (fs::path(o.shapes_dir) / (o.model + ".txt")).string();
  require(fs::exists(path),
          fmt::format("unknown model '{}' (vgg11, lenet5, a list in {}, or a parameter list file)",
                      o.model, o.shapes_dir));
  try {
    return model::read_parameters(path);
  } catch (const std::invalid_argument& e) {
    throw UserError(e.what());
  }
}

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

// The compute of `model` measured in the results directory dir.
MeasuredCompute measured_in(const std::string& dir, const std::string& model) {
  return measured_compute(load_results({dir}).systems.front(), model);
}

// --compute-scale: o.scale_from's compute measured in dir, its forward, backward and straggler
// times the factor, its optimizer step by the ratio of parameters (SGD touches each a fixed
// number of times); the gradients' ready times are the target's own, by bytes.
model::ComputeProfile scaled_compute(const WhatIfOptions& o, const std::string& dir,
                                     const std::vector<double>& bytes,
                                     std::vector<std::string>& assumptions) {
  require(o.compute_scale > 0, fmt::format("--compute-scale {} is not > 0", o.compute_scale));
  require(!dir.empty() && fs::is_directory(dir),
          fmt::format("--compute-scale needs --profile RESULTS_DIR with traced blocking runs of {}",
                      o.scale_from));
  MeasuredCompute m = measured_in(dir, o.scale_from);
  require(m.found, fmt::format("{} has no measured compute of {} to scale: {}", dir, o.scale_from,
                               m.source));
  model::ComputeProfile c = m.profile;
  const double parameters = sum(bytes) / sum(m.profile.tensor_bytes);
  c.forward_s *= o.compute_scale;
  c.backward_s *= o.compute_scale;
  c.straggler_s *= o.compute_scale;
  c.slowest_excess_s *= o.compute_scale;
  c.optimizer_s *= parameters;
  assumptions.push_back(fmt::format(
      "compute scaled from {} measured in {} ({}): forward, backward, the slowest rank's lag and "
      "its iteration's excess x {:g} (given), the optimizer step x {:.3g} (the ratio of "
      "parameters), data as measured",
      o.scale_from, dir, m.source, o.compute_scale, parameters));
  return c;
}

// The results directory the compute is read from: --profile, else the default one where the
// model (or the model scaled) is measured there and no compute is given; "" for none.
std::string profile_dir_of(const WhatIfOptions& o) {
  const bool scaled = !std::isnan(o.compute_scale);
  if (o.profile_dir.empty() && std::isnan(o.backward_s) && (o.model == "vgg11" || scaled) &&
      fs::is_directory(o.default_profile_dir)) {
    return o.default_profile_dir;
  }
  return o.profile_dir;
}

// The compute: measured in profile_dir where it has the model (or scaled from another model
// measured there), overridden by what is given.
model::ComputeProfile compute_of(const WhatIfOptions& o, const std::vector<double>& bytes,
                                 std::vector<std::string>& assumptions) {
  model::ComputeProfile c;
  bool measured = false;
  const std::string dir = profile_dir_of(o);
  const bool scaled = !std::isnan(o.compute_scale);
  if (scaled) {
    c = scaled_compute(o, dir, bytes, assumptions);
  } else if (!dir.empty()) {
    MeasuredCompute m = measured_in(dir, o.model);
    require(m.found || !std::isnan(o.backward_s),
            fmt::format("{} has no measured compute of {}: {}", dir, o.model, m.source));
    if (m.found && m.profile.tensor_bytes == bytes) {
      c = m.profile, measured = true;
      assumptions.push_back(
          fmt::format("compute measured in {}: {}, as measured (not rescaled "
                      "to a rank with a host to itself)",
                      dir, m.source));
    }
  }
  if (!std::isnan(o.forward_s)) c.forward_s = o.forward_s;
  if (!std::isnan(o.optimizer_s)) c.optimizer_s = o.optimizer_s;
  if (!std::isnan(o.backward_s)) c.backward_s = o.backward_s;
  require(measured || scaled || (!std::isnan(o.forward_s) && !std::isnan(o.backward_s)),
          fmt::format("no compute for {}: give --profile RESULTS_DIR with traced blocking runs of "
                      "it, --compute-scale R (from {} measured), or --forward-s and --backward-s",
                      o.model, o.scale_from));
  if (!measured || c.tensor_bytes != bytes || !std::isnan(o.backward_s)) {
    c.tensor_bytes = bytes;
    c.ready_s = model::ready_by_bytes(bytes, c.backward_s);
    assumptions.push_back(
        "each gradient ready after its share of the bytes of backward, the last layer's first");
  }
  assumptions.push_back(
      fmt::format("compute per rank: forward {:.3f} s, backward {:.3f} s, "
                  "optimizer {:.3f} s, data {:.3f} s",
                  c.forward_s, c.backward_s, c.optimizer_s, c.data_s));
  return c;
}

}  // namespace

int what_if_command(const WhatIfOptions& o) {
  require(o.max_ranks >= 2 && o.max_ranks <= 1 << 20,
          fmt::format("--ranks {} is not between 2 and 1048576", o.max_ranks));
  require(!o.gbits.empty(), "--gbit needs at least one rate");
  for (double g : o.gbits) require(g > 0, fmt::format("--gbit {} is not a rate > 0", g));
  require(o.latency_us >= 0, "--latency-us is negative");
  const auto parameters = parameters_of(o);
  const auto bytes = model::float_bytes(parameters);
  std::vector<std::string> assumptions = {
      fmt::format("{}: {} parameter tensors, {:.1f} MB of float32 gradient", o.model,
                  parameters.size(), sum(bytes) / 1e6)};
  model::Scenario scenario;
  scenario.compute = compute_of(o, bytes, assumptions);
  for (const auto& p : parameters) scenario.shapes.push_back(p.shape);
  for (int n = 2; n <= o.max_ranks; n *= 2) scenario.ranks.push_back(n);
  scenario.gbits = o.gbits;
  scenario.latency_s = o.latency_us * 1e-6;
  assumptions.push_back(fmt::format(
      "one rank per host; every link full duplex at the rate, {:.0f} us latency, TCP over "
      "Ethernet (1448 of 1514 bytes); weak scaling (each rank keeps its batch); bucketed with "
      "DDP's plan (1 MiB, then 25 MiB)",
      o.latency_us));
  assumptions.push_back(
      "fp16, powersgd (rank 1, compressing from the first iteration), topk (1%) and local_sgd "
      "(averaging every 8 steps): what each sends, on bucketed's buckets; the CPU time of "
      "compressing is not modelled");
  // How far the model is validated where the compute was measured: past it, extrapolated.
  ValidatedRange validated;
  if (const std::string dir = profile_dir_of(o); !dir.empty()) {
    const SystemResults measured = load_results({dir}).systems.front();
    validated = validated_range(prediction_of(measured));
    assumptions.push_back(
        validated.ranks > 0
            ? fmt::format("validated in {} up to {}; past {} ranks (dashed) extrapolated", dir,
                          validated.text(), validated.ranks)
            : fmt::format("not validated: {} has no run the model predicts", dir));
    // Where the directory measured the model past the ranks it was fitted on, how far off.
    const Extrapolation past = extrapolate_system(measured);
    if (!past.prediction.rows.empty()) {
      const ModelAccuracy a = accuracy_of(past.prediction);
      assumptions.push_back(fmt::format(
          "fitted there on {} ranks only, the model predicted its {} runs on {} ranks with a "
          "mean |error| of {:.1f}%, {:.1f}% at most",
          fmt::join(past.from, ", "), a.experiments, past.ranks, 100 * a.mean_abs_error,
          100 * a.largest_abs_error));
    }
  } else {
    assumptions.push_back("not validated: no measured results given (--profile)");
  }
  const auto points = model::what_if(scenario);
  Table t;
  t.columns = {"method", "ranks", "gbit", "iteration_s", "efficiency"};
  for (const auto& p : points)
    t.rows.push_back({p.method, p.ranks, p.gbit, p.iteration_s, p.efficiency});
  fmt::print("PREDICTED by the cost model, not measured.\n");
  for (const auto& a : assumptions) fmt::print("  {}\n", a);
  fmt::print("\n{:<16} {:>7} {:>7} {:>12} {:>11}\n", "method", "ranks", "Gbit/s", "iteration s",
             "efficiency");
  for (const auto& p : points) {
    fmt::print("{:<16} {:>7} {:>7g} {:>12.4f} {:>10.1f}%\n", p.method, p.ranks, p.gbit,
               p.iteration_s, 100 * p.efficiency);
  }
  if (o.output.empty()) return 0;
  fs::path pdf = fs::absolute(o.output);
  fs::create_directories(pdf.parent_path());
  fs::path csv = pdf;
  csv.replace_extension(".csv");
  write_file_atomically(csv.string(), t.csv());
  std::string notes;  // each assumption on lines of at most 150 characters
  for (const auto& a : assumptions) {
    size_t width = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] == ' ' && width > 130 && a.find(' ', i + 1) - i + width > 150) {
        notes += "\\n  ";
        width = 2;
        continue;
      }
      notes += a[i] == '"' ? '\'' : a[i];
      ++width;
    }
    notes += "\\n";
  }
  std::string rates;
  for (double g : o.gbits) rates += fmt::format("{:g} ", g);
  std::string output;
  const int code = run_captured(
      {"gnuplot", "-e",
       fmt::format("figdir='{}'; data='{}'; out='{}'; rates='{}'; validated={}; "
                   "notes=\"{}\"",
                   o.figures_dir, csv.string(), pdf.string(), rates, validated.ranks, notes),
       (fs::path(o.figures_dir) / "what_if.gp").string()},
      &output);
  require(code == 0, fmt::format("gnuplot what_if.gp failed (exit {}): {}", code,
                                 output.substr(0, output.find('\n'))));
  fmt::print("\n{} (data: {})\n", pdf.string(), csv.string());
  return 0;
}

}  // namespace dtbench
