// Figure 9, "Epochs": its table, caption and sentences, drawn by fig09_epochs.gp.
#include <fmt/format.h>

#include <cmath>

#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData epochs(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "epochs", &model);
  f.table.columns = {"epoch", "iterations", "mean_train_loss", "test_loss", "test_accuracy"};
  if (runs.empty()) return f;
  const TrainRun& r = *runs[0];
  for (const auto& e : r.record.evaluations) {
    double sum = 0;
    int64_t n = 0;
    for (size_t i = 0; i < r.record.iterations.loss.size(); ++i) {
      if (r.record.iterations.epoch[i] == e.epoch) sum += r.record.iterations.loss[i], ++n;
    }
    f.table.rows.push_back({static_cast<double>(e.epoch), e.iterations,
                            n > 0 ? sum / static_cast<double>(n) : std::nan(""), e.loss,
                            e.accuracy});
  }
  if (f.table.rows.empty()) return f;
  f.caption = fmt::format("Test accuracy and loss after each epoch (one run); {}, {} ranks, {}",
                          model, r.ranks, method_label(r));
  const size_t last = f.table.rows.size() - 1;
  f.sentences.push_back(fmt::format(
      "Test accuracy went from {} after epoch 1 to {} after epoch {}.",
      percent(f.table.number(0, "test_accuracy")), percent(f.table.number(last, "test_accuracy")),
      static_cast<int>(f.table.number(last, "epoch"))));
  return f;
}

}  // namespace dtbench::report
