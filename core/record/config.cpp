#include "record/config.h"

#include "catalogue/models.h"
#include "common/error.h"

namespace dtbench {

void apply_model_defaults(TrainConfig& c) {
  const ModelSpec& model = find_model(c.model);
  c.dataset = model.default_dataset;
  c.global_batch = model.global_batch;
  c.lr = model.lr;
  c.momentum = model.momentum;
  c.weight_decay = model.weight_decay;
}

void check_sync(const TrainConfig& c) {
  require_mode(find_method(c.sync), c.sync_options.mode);
  require(c.sync_options.bucket_mb > 0, "--bucket-mb must be positive");
}

}  // namespace dtbench
