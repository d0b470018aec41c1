#include "train/config.h"

#include "common/error.h"
#include "models/models.h"

namespace dtbench {

void apply_model_defaults(TrainConfig& c) {
  const ModelSpec& model = find_model(c.model);
  c.dataset = model.default_dataset;
  c.global_batch = model.global_batch;
  c.lr = model.lr;
  c.momentum = model.momentum;
  c.weight_decay = model.weight_decay;
}

SyncOptions sync_options_of(const TrainConfig& c) {
  SyncOptions o;
  o.aggregate = parse_aggregate(c.aggregate);
  o.mode = c.mode.empty() ? find_method(c.sync).modes.front() : parse_mode(c.mode);
  o.bucket_mb = c.bucket_mb;
  o.powersgd_rank = c.powersgd_rank;
  o.powersgd_start = c.powersgd_start;
  o.topk_fraction = c.topk_fraction;
  o.local_sgd_period = c.local_sgd_period;
  o.ranks_per_host = c.ranks_per_host;
  require_mode(find_method(c.sync), o.mode);
  require(c.bucket_mb > 0, "--bucket-mb must be positive");
  return o;
}

}  // namespace dtbench
