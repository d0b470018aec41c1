// Figure 8, "Global batch size": its table, caption and sentences, drawn by fig08_batch_size.gp.
#include <fmt/format.h>

#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData batch_size(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "batch_size", &model);
  f.table.columns = {"global_batch",     "iterations", "mean_s",
                     "final_train_loss", "test_loss",  "test_accuracy"};
  for (const TrainRun* r : runs) {
    f.table.rows.push_back({static_cast<double>(r->record.config.global_batch),
                            static_cast<int64_t>(r->record.iterations.loss.size()),
                            summarize(timed(*r)).mean, r->record.iterations.loss.back(),
                            test_loss(*r), final_accuracy(*r)});
  }
  if (runs.empty()) return f;
  sort_numeric(f.table, "global_batch");
  f.caption = fmt::format("Test accuracy and loss after {} epoch(s) vs global batch; {}, {} ranks",
                          runs[0]->record.config.epochs, model, runs[0]->ranks);
  range_sentence(f, "global_batch", "global batch");
  f.sentences.push_back(
      "With the same number of epochs, a larger batch takes fewer optimiser "
      "steps at the same learning rate.");
  return f;
}

}  // namespace dtbench::report
