#include "report/document/answer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/parameter_shapes.h"
#include "model/what_if.h"
#include "report/predict/candidates.h"
#include "report/predict/extrapolation.h"
#include "report/predict/model_inputs.h"
#include "report/predict/predict.h"

namespace dtbench {

namespace {

// One paragraph: its lead-in, where it comes from, and the section's first `most` computed
// sentences (or what measures them).
std::string paragraph(const std::map<std::string, BuiltSection>& sections, const std::string& id,
                      const std::string& lead, size_t most = 8) {
  auto it = sections.find(id);
  if (it == sections.end()) return "";
  const BuiltSection& s = it->second;
  if (s.data.table.empty()) {
    return fmt::format("**{}** These results do not measure it (measured by: {}; section {}).\n\n",
                       lead, s.spec->matrices, s.number);
  }
  std::string text = fmt::format("**{}** ", lead);
  for (size_t k = 0; k < s.data.sentences.size() && k < most; ++k) {
    text += s.data.sentences[k] + " ";
  }
  return text + fmt::format("(Section {}, `data/{}.csv`.)\n\n", s.number, id);
}

// The diagnosis's finding of one part: the first entry that names something (holds `names`, and
// not "no rank" or "no host"), else its first; and how many more the Diagnosis has.
std::string finding(const std::vector<std::string>& entries, const std::string& names) {
  if (entries.empty()) return "";
  size_t pick = 0;
  for (size_t k = 0; k < entries.size(); ++k) {
    const std::string& e = entries[k];
    if (e.find(names) != std::string::npos && e.find("no rank") == std::string::npos &&
        e.find("no host") == std::string::npos) {
      pick = k;
      break;
    }
  }
  const size_t more = entries.size() - 1;
  return entries[pick] +
         (more > 0 ? fmt::format(" ({} more in the Diagnosis.)", more) : std::string());
}

// The what-if from the compute measured here (VGG-11's, else LeNet-5's): per link rate and rank
// count, the fastest method and its scaling efficiency; the model's error on the runs measured
// here, and how far they reach.
std::string bigger_cluster(const SystemResults& s, Table& table) {
  const std::string lead = "**A bigger cluster** (predicted by the cost model, not measured). ";
  MeasuredCompute m;
  std::string model_name;
  for (const char* name : {"vgg11", "lenet5"}) {
    m = measured_compute(s, name);
    if (m.found) {
      model_name = name;
      break;
    }
  }
  if (!m.found) {
    return lead +
           "These results have no traced blocking run to take the compute from (the `model` "
           "matrix measures it; `dtbench what-if` takes one from any results directory).\n\n";
  }
  model::Scenario scenario;
  scenario.compute = m.profile;
  for (const auto& p : model::builtin_parameters(model_name)) scenario.shapes.push_back(p.shape);
  scenario.ranks = {16, 64, 1024};
  scenario.gbits = {0.1, 1, 10};
  scenario.latency_s = 50e-6;
  table.columns = {"gbit", "ranks", "method", "iteration_s", "efficiency", "fastest"};
  std::string text = lead + fmt::format(
                                "With the compute of {} measured here, one rank per host, 50 us "
                                "of latency, each rank keeping its batch, the fastest exact "
                                "method (the lossy ones, which change what is learnt, are in the "
                                "CSV)",
                                model_name);
  const std::vector<model::ScalingPoint> points = model::what_if(scenario);
  for (double gbit : scenario.gbits) {
    std::vector<std::string> at;
    for (int n : scenario.ranks) {
      const model::ScalingPoint* best = nullptr;
      for (const auto& p : points) {
        if (p.gbit != gbit || p.ranks != n || is_lossy(p.method)) continue;
        if (best == nullptr || p.iteration_s < best->iteration_s) best = &p;
      }
      for (const auto& p : points) {
        if (p.gbit == gbit && p.ranks == n) {
          table.rows.push_back({gbit, n, p.method, p.iteration_s, p.efficiency, &p == best});
        }
      }
      if (best != nullptr) {
        at.push_back(fmt::format("{} at {} ranks ({:.0f}% scaling efficiency)", best->method, n,
                                 100 * best->efficiency));
      }
    }
    text += fmt::format("{} at {:g} Gbit/s is {}", gbit == scenario.gbits.front() ? "" : ";", gbit,
                        fmt::join(at, ", "));
  }
  int most_ranks = 0;
  for (const auto& r : s.runs) most_ranks = std::max(most_ranks, r.record.config.world_size);
  const Prediction& p = prediction_of(s);
  const ModelAccuracy a = accuracy_of(p);
  const ValidatedRange v = validated_range(p);
  text += fmt::format(". Measured here: up to {} ranks", most_ranks);
  text += a.experiments > 0
              ? fmt::format(
                    "; the model's error on the {} runs it predicted here: {:.1f}% on "
                    "average, {:.1f}% at most; validated up to {} (section 19)",
                    a.experiments, 100 * a.mean_abs_error, 100 * a.largest_abs_error, v.text())
              : "; the model's error is not measured in these results (section 19)";
  // Where these results hold the model fitted on fewer ranks than they measured, how far off.
  if (const Extrapolation& past = extrapolation_of(s); !past.prediction.rows.empty()) {
    const ModelAccuracy e = accuracy_of(past.prediction);
    text += fmt::format(
        "; fitted on {} ranks only, it predicted the {} runs on {} ranks within {:.1f}% on "
        "average, {:.1f}% at most (section 21)",
        fmt::join(past.from, ", "), e.experiments, past.ranks, 100 * e.mean_abs_error,
        100 * e.largest_abs_error);
  }
  return text + fmt::format(
                    ". Past {} ranks and on other links these are extrapolations. "
                    "(`data/answer_what_if.csv`; `dtbench what-if` draws more.)\n\n",
                    a.experiments > 0 ? v.ranks : most_ranks);
}

// A study's verify phase: the cells the model predicted, the measured ones against their
// predictions, and the fastest predicted that the budget left unmeasured; "" without one.
std::string study_cells(const SystemResults& s, Table& table) {
  const std::vector<VerifiedCell> cells = verified_cells(s);
  if (cells.empty()) return "";
  table.columns = {"experiment", "predicted_s", "measured_s", "reps", "error", "basis"};
  std::vector<std::string> measured;
  const VerifiedCell* open = nullptr;
  double largest = 0, low = 0, high = 0;
  int errors = 0;
  for (const VerifiedCell& c : cells) {
    const bool predicted = !std::isnan(c.predicted_s);
    const bool known = c.reps > 0;
    if (predicted) {
      low = low == 0 ? c.predicted_s : std::min(low, c.predicted_s);
      high = std::max(high, c.predicted_s);
    }
    using Cell = nlohmann::json;
    table.rows.push_back({c.experiment, predicted ? Cell(c.predicted_s) : Cell(""),
                          known ? Cell(c.measured_s) : Cell(""), c.reps,
                          predicted && known ? Cell(c.error()) : Cell(""), c.basis});
    if (known) {
      measured.push_back(
          predicted ? fmt::format("`{}` {:.3f} s against {:.3f} s predicted ({:+.1f}%)",
                                  c.experiment, c.measured_s, c.predicted_s, 100 * c.error())
                    : fmt::format("`{}` {:.3f} s (not predicted: {})", c.experiment, c.measured_s,
                                  c.basis));
      if (predicted) {
        largest = std::max(largest, std::abs(c.error()));
        ++errors;
      }
    } else if (predicted && (open == nullptr || c.predicted_s < open->predicted_s)) {
      open = &c;
    }
  }
  std::string text = fmt::format(
      "**The cells the study predicted.** The cost model predicted {} cells from the compute "
      "and sweeps measured here, and the study measured {} of them, the predicted fastest "
      "first: {}.",
      cells.size(), measured.size(),
      measured.empty() ? "none" : fmt::format("{}", fmt::join(measured, "; ")));
  if (errors > 0) text += fmt::format(" Its largest error on them: {:.1f}%.", 100 * largest);
  if (low > 0) {
    text += fmt::format(
        " The predictions span {:.1f}% ({:.3f} s to {:.3f} s): the model ranks only cells it "
        "predicts further apart than a cell's runs differ here (section 1's repetitions).",
        100 * (high / low - 1), low, high);
  }
  if (open != nullptr) {
    text += fmt::format(" The fastest predicted cell the budget left unmeasured: `{}`, {:.3f} s.",
                        open->experiment, open->predicted_s);
  }
  return text + " (`data/answer_study.csv`, the study's `verify.json`.)\n\n";
}

}  // namespace

std::string answer_page(const std::map<std::string, BuiltSection>& sections,
                        const Diagnosis& diagnosis, const SystemResults& s, Table& what_if,
                        Table& study) {
  std::string text =
      "What these results say, each sentence computed in the section it names (its numbers in "
      "that section's CSV under `data/`); a ranking counts only out of the noise.\n\n";
  text += paragraph(sections, "fig01_iteration_time", "The fastest method here.");
  text += paragraph(sections, "fig02_breakdown", "Where the iteration goes.");
  text += paragraph(sections, "fig06_bucket_sweep", "The bucket size.");
  text += paragraph(sections, "fig13_scaling", "More ranks.");
  text += paragraph(sections, "fig19_model", "The cost model here.", 1);
  text += study_cells(s, study);
  text += bigger_cluster(s, what_if);
  std::vector<std::string> found;
  for (const auto& f : {finding(diagnosis.stragglers, "computed longest in"),
                        finding(diagnosis.links, "slow"), finding(diagnosis.overlap, "hidden")}) {
    if (!f.empty()) found.push_back(f);
  }
  text += "**The diagnosis** (below). ";
  if (found.empty()) {
    text +=
        "No traced run and no link probe in these results (the `diagnosis` matrix measures "
        "them).\n\n";
  } else {
    for (const auto& f : found) text += f + " ";
    text += "\n\n";
  }
  return text;
}

}  // namespace dtbench
