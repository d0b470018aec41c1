#pragma once
// `dtbench what-if`: the cost model on clusters no one here has (model/what_if.h),
// printed as a table and drawn as scaling efficiency per method, labelled as predicted, with
// its assumptions under the figure.
#include <cmath>
#include <string>
#include <vector>

namespace dtbench {

struct WhatIfOptions {
  std::string model = "vgg11";  // vgg11, lenet5, a name in model/shapes/, or a parameter list
  int max_ranks = 1024;         // 2, 4, ... up to it
  std::vector<double> gbits = {1, 10, 25, 100};
  double latency_us = 50;
  std::string profile_dir;  // results with blocking runs of the model (its measured compute)
  // Used when profile_dir is empty and the model's compute is not given: vgg11 is measured there.
  std::string default_profile_dir;
  double forward_s = std::nan(""), backward_s = std::nan(""), optimizer_s = std::nan("");
  // Compute scaled from another model's measured profile: its forward and backward times this
  // factor (e.g. the ratio of multiply-adds per batch), its optimizer step by the ratio of
  // parameters. NaN: not scaled.
  double compute_scale = std::nan("");
  std::string scale_from = "vgg11";  // the measured model the compute is scaled from
  std::string output;                // a PDF (its CSV beside it); "" = the table only
  std::string shapes_dir;            // model/shapes
  std::string figures_dir;           // report/figures (what_if.gp, common.gp)
};

// UserError for an unknown model, a bad parameter list, or compute that is neither measured
// nor given.
int what_if_command(const WhatIfOptions& options);

}  // namespace dtbench
