#include "train/trainer.h"

#include <fmt/format.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <limits>
#include <mutex>

#include "catalogue/models.h"
#include "comm/allgather_text.h"
#include "common/error.h"
#include "common/files.h"
#include "common/host.h"
#include "common/phase_timer.h"
#include "common/units.h"
#include "data/load.h"
#include "data/preprocess.h"
#include "models/make_model.h"
#include "plan/sampler.h"
#include "record/nic_counters.h"
#include "record/resource_usage.h"
#include "record/start_facts.h"
#include "record/system_info.h"
#include "stats/stats.h"
#include "train/start_probe.h"
#include "train/timeline.h"

namespace dtbench {

namespace F = torch::nn::functional;

// The larger allreduce of the link probe (or the whole gradient, if smaller): big enough that
// the rate, not the latency, sets its time.
constexpr int64_t kLinkProbeBytes = 4 * kMiB;
// Each way between two hosts before the first iteration: enough to tell a 100 Mbit/s link from
// a 1 Gbit/s one (88 ms against 9 ms), little enough to cost well under a second.
constexpr int64_t kLinkSampleBytes = kMiB;

TrainData load_train_data(const TrainConfig& config) {
  TrainData data;
  data.spec = &find_dataset(config.dataset);
  data.train = load_dataset(config.dataset, config.data_dir, Split::train);
  if (config.train_limit > 0 && config.train_limit < data.train.size()) {
    data.train.images = data.train.images.narrow(0, 0, config.train_limit);
    data.train.labels = data.train.labels.narrow(0, 0, config.train_limit);
  }
  data.test = load_dataset(config.dataset, config.data_dir, Split::test);
  return data;
}

namespace {

// Busy work, not sleep: a compute straggler keeps its core busy like a slow node would.
void busy_wait_ms(double ms) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(ms);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// FNV-1a over the bytes of every parameter: equal on every rank iff the replicas are equal.
std::string parameter_checksum(const Classifier& model) {
  uint64_t h = 1469598103934665603ULL;
  for (const auto& p : model->parameters()) {
    const auto* bytes = static_cast<const uint8_t*>(p.data_ptr());
    for (size_t i = 0; i < p.nbytes(); ++i) h = (h ^ bytes[i]) * 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace

template <typename... Args>
void Trainer::say(const char* format, const Args&... args) const {
  if (log_ != nullptr) fmt::print(log_, fmt::runtime(format), args...);
}

Trainer::Trainer(TrainConfig config, TrainData data, Communicator& comm, std::FILE* log)
    : config_(std::move(config)),
      faults_(FaultPlan::parse(config_.fault)),
      data_(std::move(data)),
      comm_(comm),
      log_(comm.rank() == 0 ? log : nullptr) {
  config_.world_size = comm.size();
  config_.rank = comm.rank();
  config_.backend = comm.backend();
  as_argument_check([&] {  // the same on every rank
    const ModelSpec& spec = find_model(config_.model);
    require(spec.in_channels == data_.spec->channels,
            fmt::format("model {} takes {}-channel images but dataset {} has {} channels",
                        spec.name, spec.in_channels, data_.spec->name, data_.spec->channels));
    require(config_.global_batch % config_.world_size == 0,
            fmt::format("global batch {} does not divide by the {} ranks", config_.global_batch,
                        config_.world_size));
    if (config_.sync.empty()) config_.sync = default_sync(config_.world_size);
    check_sync(config_);
  });
  // Same seed everywhere, and then rank 0's parameters broadcast, so that replicas start
  // identical even if initialisation were not deterministic.
  {
    // libtorch's generator is per process: ranks that share one (threads, in tests) take turns,
    // so each draws the whole initialisation from the seed.
    static std::mutex initialisation;
    std::lock_guard<std::mutex> lock(initialisation);
    torch::manual_seed(config_.seed);
    model_ = make_model(config_.model);
  }
  watchdog_ = std::make_unique<Watchdog>(config_.timeout_s,
                                         fmt::format("rank {} on {}", comm.rank(), host_name()));
  control_ = comm.duplicate();
  // Whatever started the ranks, they share the cores they find themselves sharing.
  const CpuPlace place = cpu_place();
  threads_ = share_threads(config_.threads, place, allgather_text(*control_, place.key()),
                           launcher_local_ranks());
  torch::set_num_threads(threads_.threads);
  say("threads per rank: {}\n", threads_.text());
  broadcast_from_rank0(/*parameters=*/true, /*buffers=*/true);
  if (!config_.trace.empty()) {
    trace_ = std::make_shared<TraceLog>();
    trace_->name_thread("training");
    comm_.trace_into(trace_);
    trace_hooks_.add(model_->parameters(), [log = trace_.get()](size_t i, const at::Tensor& g) {
      log->instant("gradient ready", "backward", TraceLog::Clock::now(),
                   {{"parameter", static_cast<int64_t>(i)}, {"bytes", g.nbytes()}});
    });
  }
  sync_ = make_sync(config_.sync, config_.sync_options);
  sync_->setup(model_->parameters(), comm_);
  if (sync_->plans_from_timeline()) {
    // Here, before run() starts counting bytes: the probe is not the strategy's traffic.
    int64_t bytes = 0;
    for (const auto& p : model_->parameters()) bytes += p.nbytes();
    measure_allreduce_cost(comm_, std::min<int64_t>(bytes, kLinkProbeBytes), timeline_);
    clock_ = std::make_unique<GradientClock>(model_->parameters());
  }
}

Trainer::~Trainer() {
  if (trace_) comm_.trace_into(nullptr);
}

void Trainer::broadcast_from_rank0(bool parameters, bool buffers) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> tensors;
  if (parameters) tensors = model_->parameters();
  if (buffers) {
    for (const auto& b : model_->buffers()) {
      if (b.scalar_type() == torch::kFloat32) tensors.push_back(b);
    }
  }
  for (auto& t : tensors) control_->broadcast(t, 0);
}

RunRecord Trainer::run() {
  RunRecord record;
  // Before the NIC counters are read: the probe's bytes are not the strategy's traffic.
  clocks_ = measure_clock_offsets(*control_);
  record.links = measure_links(*control_, allgather_text(*control_, host_name()), kLinkSampleBytes);
  ResourceMeter meter;
  const Traffic traffic_before = comm_.traffic();
  const auto nic_before = read_nic_counters();
  record.config = config_;
  record.threads = torch::get_num_threads();
  std::vector<std::string> files = data_.train.files;
  files.insert(files.end(), data_.test.files.begin(), data_.test.files.end());
  record.system = describe_system(files);

  torch::optim::SGD optimizer(model_->parameters(), torch::optim::SGDOptions(config_.lr)
                                                        .momentum(config_.momentum)
                                                        .weight_decay(config_.weight_decay));
  ShardSampler sampler(data_.train.size(), config_.world_size, config_.rank, config_.seed,
                       /*shuffle=*/true);
  const int64_t batch = config_.global_batch / config_.world_size;
  const int64_t steps = sampler.num_batches(batch);
  std::vector<double> own_times;
  std::array<std::vector<double>, kPhaseCount> own_phases;
  std::vector<int64_t> own_faults;
  if (trace_) trace_->set_origin(common_origin(*control_, clocks_));

  for (int64_t epoch = 1; epoch <= config_.epochs && !reached_max_iters(record); ++epoch) {
    sampler.set_epoch(static_cast<uint64_t>(epoch - 1));
    model_->train();
    for (int64_t step = 1; step <= steps && !reached_max_iters(record); ++step) {
      inject_faults(static_cast<int64_t>(record.iterations.size()));
      double loss = 0;
      const int64_t faults_before = minor_faults();
      const auto iteration = static_cast<int64_t>(record.iterations.size());
      if (trace_) trace_->set_recording(iteration >= kTimedFirst && iteration <= kTimedLast);
      IterationTimes t =
          train_step(epoch, iteration, sampler.batch(step - 1, batch), optimizer, &loss);
      if (trace_) trace_->set_recording(false);
      own_faults.push_back(minor_faults() - faults_before);
      watchdog_->beat();
      own_times.push_back(t.total_s);
      for (size_t p = 0; p < kPhaseCount; ++p) own_phases[p].push_back(t.phase_s[p]);
      if (config_.world_size > 1) loss = reduce_across_ranks(t, loss);
      // The loss is the mean over ranks, the same on each: all stop here together. Times of a
      // step computed on NaN or infinity are not a measurement of training.
      if (!std::isfinite(loss)) {
        throw TrainingDiverged(fmt::format(
            "the loss is {} at epoch {}, step {}: the training diverged", loss, epoch, step));
      }
      if (clock_) plan_from_first_iteration();
      record.iterations.add(epoch, step, loss, t);

      if (step % config_.log_interval == 0 || step == steps) {
        say("Epoch {} [{}/{}] loss {:.4f}\n", epoch, step, steps, record.iterations.loss.back());
      }
      if (static_cast<int64_t>(record.iterations.size()) == kTimedLast + 1) {
        print_average(record.iterations);
      }
    }
    sync_->settle();
    check_replicas(epoch);
    if (config_.eval) {
      record.evaluations.push_back(evaluate(epoch, static_cast<int64_t>(record.iterations.size())));
    }
  }
  if (record.iterations.size() <= static_cast<size_t>(kTimedLast)) print_average(record.iterations);

  const auto clocks_after = measure_clock_offsets(*control_);
  for (size_t r = 0; r < clocks_.size(); ++r) {
    clocks_[r].drift_s = clocks_after[r].offset_s - clocks_[r].offset_s;
  }
  if (trace_) write_trace();
  record.bucket_bytes = sync_->bucket_bytes();
  record.plan_inputs = timeline_;
  RankUsage mine;
  mine.rank = config_.rank;
  mine.host = host_name();
  mine.usage = meter.read();
  const Traffic traffic_after = comm_.traffic();
  mine.payload_sent_bytes = traffic_after.sent_bytes - traffic_before.sent_bytes;
  mine.payload_received_bytes = traffic_after.received_bytes - traffic_before.received_bytes;
  for (const auto& [name, bytes] : nic_delta(nic_before, read_nic_counters())) {
    mine.nic[name] = {{"sent_bytes", bytes.sent}, {"received_bytes", bytes.received}};
  }
  mine.iteration_s = own_times;
  mine.phase_s = own_phases;
  mine.iteration_minor_faults = own_faults;
  mine.clock = clocks_.at(config_.rank);
  mine.threads = threads_;
  for (const auto& text : allgather_text(*control_, nlohmann::json(mine).dump())) {
    record.ranks.push_back(nlohmann::json::parse(text).get<RankUsage>());
  }
  return record;
}

double Trainer::reduce_across_ranks(IterationTimes& t, double loss) {
  // Outside the timed region: the global loss and the phase means over ranks, and the
  // iteration time of the slowest rank, which sets the pace.
  const double n = config_.world_size;
  std::vector<float> sums = {static_cast<float>(loss)};
  for (double phase : t.phase_s) sums.push_back(static_cast<float>(phase));
  auto sum_tensor = torch::tensor(sums);
  control_->allreduce(sum_tensor);
  auto slowest = torch::tensor({static_cast<float>(t.total_s)});
  control_->allreduce(slowest, ReduceOp::max);
  for (size_t p = 0; p < kPhaseCount; ++p) t.phase_s[p] = sum_tensor[p + 1].item<double>() / n;
  t.total_s = std::max(slowest.item<double>(), t.total_s);
  return sum_tensor[0].item<double>() / n;
}

IterationTimes Trainer::train_step(int64_t epoch, int64_t iteration,
                                   const std::vector<int64_t>& indices,
                                   torch::optim::Optimizer& optimizer, double* loss_value) {
  PhaseTimer timer(trace_.get(), iteration);
  timer.start();
  Batch b = make_batch(data_.train, indices, data_.spec->preprocess, /*train=*/true, config_.seed,
                       static_cast<uint64_t>(epoch - 1));
  timer.lap(Phase::data);
  sync_->before_forward();  // first: a strategy may let go of gradients that view its buffers
  optimizer.zero_grad();
  torch::Tensor loss = F::cross_entropy(model_->forward(b.images), b.labels);
  if (config_.rank == config_.slow_rank) busy_wait_ms(config_.slow_ms);
  timer.lap(Phase::forward);
  sync_->before_backward(loss);
  if (clock_) clock_->start();
  loss.backward();
  timer.lap(Phase::backward);
  bool apply = sync_->finish();
  timer.lap(Phase::sync);
  if (apply) optimizer.step();
  timer.lap(Phase::optimizer);
  sync_->after_step();
  timer.lap(Phase::sync);
  *loss_value = loss.item<double>();
  return timer.finish();
}

void Trainer::write_trace() {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& text : allgather_text(*control_, trace_->events(config_.rank).dump())) {
    for (auto& e : nlohmann::json::parse(text)) events.push_back(std::move(e));
  }
  if (config_.rank != 0) return;
  const double misaligned_s = worst_misalignment_s(clocks_);
  nlohmann::json trace = {{"traceEvents", std::move(events)},
                          {"displayTimeUnit", "ms"},
                          {"otherData",
                           {{"model", config_.model},
                            {"sync", config_.sync},
                            {"mode", to_string(config_.sync_options.mode)},
                            {"backend", config_.backend},
                            {"ranks", config_.world_size},
                            {"iterations", fmt::format("{}..{}", kTimedFirst, kTimedLast)},
                            {"clock_alignment_s", misaligned_s}}}};
  write_file_atomically(config_.trace, trace.dump());
}

void Trainer::plan_from_first_iteration() {
  timeline_.ready_s = clock_->ready_s();
  clock_.reset();
  max_over_ranks(*control_, timeline_.ready_s);  // the latest over ranks, on every rank
  sync_->plan(timeline_);
}

void Trainer::check_replicas(int64_t epoch) {
  if (config_.world_size == 1 || config_.sync == "none") return;  // none: replicas differ
  if (faults_.at(FaultPoint::replica_check, config_.rank) == Fault::corrupt) {
    torch::NoGradGuard no_grad;
    model_->parameters()[0].add_(1e-3);
  }
  auto sums = allgather_text(*control_, parameter_checksum(model_));
  for (int r = 1; r < config_.world_size; ++r) {
    if (sums[r] != sums[0]) {
      throw RunError(
          fmt::format("replicas diverged after epoch {}: rank {}'s parameter checksum "
                      "{} differs from rank 0's {}",
                      epoch, r, sums[r], sums[0]));
    }
  }
}

void Trainer::inject_faults(int64_t iteration) {
  switch (faults_.at(FaultPoint::iteration_start, config_.rank, iteration)) {
    case Fault::kill:
      raise(SIGKILL);
      break;
    case Fault::hang:
      watchdog_.reset();  // a hang, not a failure that the trainer notices
      while (true) pause();
    case Fault::nan: {
      torch::NoGradGuard no_grad;
      for (auto& p : model_->parameters()) p.fill_(std::numeric_limits<float>::quiet_NaN());
      break;
    }
    default:
      break;
  }
}

bool Trainer::reached_max_iters(const RunRecord& record) const {
  return config_.max_iters > 0 &&
         static_cast<int64_t>(record.iterations.size()) >= config_.max_iters;
}

void Trainer::print_average(const IterationLog& log) const {
  auto timed = window(log.total_s, kTimedFirst, kTimedLast);
  if (timed.empty()) {
    say("Average time per iteration: not measured (fewer than 2 iterations)\n");
    return;
  }
  say("Average time per iteration (iterations {}-{}): {:.4f} s\n", kTimedFirst,
      kTimedFirst + static_cast<int64_t>(timed.size()) - 1, summarize(timed).mean);
}

Evaluation Trainer::evaluate(int64_t epoch, int64_t iterations_done) {
  // Every rank evaluates an interleaved share of the test set with rank 0's BatchNorm
  // statistics (each rank's own differ, as they saw different batches); the sums are reduced.
  broadcast_from_rank0(/*parameters=*/false, /*buffers=*/true);
  torch::NoGradGuard no_grad;
  model_->eval();
  const Dataset& test = data_.test;
  const int64_t limit =
      config_.eval_limit > 0 ? std::min(config_.eval_limit, test.size()) : test.size();
  std::vector<int64_t> mine;
  for (int64_t i = config_.rank; i < limit; i += config_.world_size) mine.push_back(i);
  double loss_sum = 0, correct = 0;
  for (size_t first = 0; first < mine.size(); first += config_.eval_batch) {
    size_t last = std::min(mine.size(), first + static_cast<size_t>(config_.eval_batch));
    std::vector<int64_t> indices(mine.begin() + first, mine.begin() + last);
    Batch b = make_batch(test, indices, data_.spec->preprocess, /*train=*/false, config_.seed, 0);
    auto logits = model_->forward(b.images);
    loss_sum +=
        F::cross_entropy(logits, b.labels, F::CrossEntropyFuncOptions().reduction(torch::kSum))
            .item<double>();
    correct += logits.argmax(1).eq(b.labels).sum().item<double>();
  }
  model_->train();
  auto totals = torch::tensor({static_cast<float>(loss_sum), static_cast<float>(correct)});
  control_->allreduce(totals);
  watchdog_->beat();
  Evaluation e{epoch,
               iterations_done,
               totals[0].item<double>() / static_cast<double>(limit),
               std::llround(totals[1].item<double>()),
               limit,
               0};
  e.accuracy = static_cast<double>(e.correct) / static_cast<double>(e.total);
  say("Test set: average loss {:.4f}, accuracy {}/{} ({:.2f}%)\n", e.loss, e.correct, e.total,
      100.0 * e.accuracy);
  return e;
}

}  // namespace dtbench
