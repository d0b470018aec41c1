// The single-process trainer on tiny generated data: it learns, it is reproducible, it prints
// the course's lines, and its record holds what was measured.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>
#include <numeric>

#include "comm/self_communicator.h"
#include "common/error.h"
#include "fixtures.h"
#include "thread_ranks.h"
#include "train/trainer.h"

namespace dtbench {
namespace {

using testing::TempDir;

class TinyMnist : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_mnist(dir_.path(), 320, 100, /*gzip=*/true);
    config_.model = "lenet5";
    config_.dataset = "mnist";
    config_.data_dir = dir_.path();
    config_.global_batch = 32;
    config_.lr = 0.05;
    config_.weight_decay = 0;
    config_.threads = 1;
    config_.log_interval = 5;
  }

  // Runs the trainer, capturing what it prints.
  RunRecord train(const TrainConfig& config, std::string* printed = nullptr) {
    std::FILE* log = std::tmpfile();
    auto self = make_self_communicator();
    RunRecord record = Trainer(config, load_train_data(config), *self, log).run();
    if (printed != nullptr) {
      std::rewind(log);
      char buffer[256];
      while (std::fgets(buffer, sizeof(buffer), log) != nullptr) *printed += buffer;
    }
    std::fclose(log);
    return record;
  }

  TempDir dir_;
  TrainConfig config_;
};

double mean_of(const std::vector<double>& v, size_t first, size_t last) {
  return std::accumulate(v.begin() + first, v.begin() + last, 0.0) /
         static_cast<double>(last - first);
}

TEST_F(TinyMnist, LossFallsAndTestAccuracyRises) {
  config_.epochs = 4;
  RunRecord r = train(config_);
  ASSERT_EQ(r.iterations.size(), 40u);  // 320 / 32 = 10 iterations per epoch
  EXPECT_LT(mean_of(r.iterations.loss, 35, 40), 0.5 * mean_of(r.iterations.loss, 0, 5));
  ASSERT_EQ(r.evaluations.size(), 4u);
  EXPECT_EQ(r.evaluations.back().total, 100);
  EXPECT_GT(r.evaluations.back().accuracy, 0.8);
}

TEST_F(TinyMnist, SameSeedGivesBitwiseIdenticalLosses) {
  config_.epochs = 2;
  config_.eval = false;
  RunRecord a = train(config_), b = train(config_);
  EXPECT_EQ(a.iterations.loss, b.iterations.loss);
  config_.seed = 2;
  RunRecord c = train(config_);
  EXPECT_NE(a.iterations.loss, c.iterations.loss);
}

TEST_F(TinyMnist, PrintsTheCourseLines) {
  config_.epochs = 5;  // 50 iterations: past the 1..39 window
  std::string printed;
  train(config_, &printed);
  EXPECT_NE(printed.find("Epoch 1 [5/10] loss "), std::string::npos) << printed;
  EXPECT_NE(printed.find("Epoch 5 [10/10] loss "), std::string::npos) << printed;
  EXPECT_NE(printed.find("Average time per iteration (iterations 1-39): "), std::string::npos);
  EXPECT_NE(printed.find("Test set: average loss "), std::string::npos);
  EXPECT_NE(printed.find("/100 ("), std::string::npos);
}

TEST_F(TinyMnist, MaxItersStopsMidEpochAndStillEvaluates) {
  config_.epochs = 3;
  config_.max_iters = 13;
  config_.eval_limit = 30;
  std::string printed;
  RunRecord r = train(config_, &printed);
  EXPECT_EQ(r.iterations.size(), 13u);
  EXPECT_EQ(r.iterations.epoch.back(), 2);
  EXPECT_EQ(r.iterations.step.back(), 3);
  ASSERT_EQ(r.evaluations.size(), 2u);
  EXPECT_EQ(r.evaluations[1].iterations, 13);
  EXPECT_EQ(r.evaluations[1].total, 30);
  EXPECT_NE(printed.find("(iterations 1-12)"), std::string::npos) << printed;
}

TEST_F(TinyMnist, TrainLimitMakesAnEpochAPassOverTheFirstImages) {
  config_.epochs = 2;
  config_.train_limit = 96;  // 3 iterations of 32 per epoch, where the whole set makes 10
  config_.eval_limit = 30;
  RunRecord r = train(config_);
  EXPECT_EQ(r.iterations.size(), 6u);
  ASSERT_EQ(r.evaluations.size(), 2u);
  EXPECT_EQ(r.evaluations[0].iterations, 3);
  EXPECT_EQ(r.config.train_limit, 96);
  config_.train_limit = 1000;  // more than there are: the whole set
  config_.epochs = 1;
  EXPECT_EQ(train(config_).iterations.size(), 10u);
}

TEST_F(TinyMnist, PhasesAddUpToTheIterationTime) {
  config_.max_iters = 5;
  config_.eval = false;
  RunRecord r = train(config_);
  for (size_t i = 0; i < r.iterations.size(); ++i) {
    double sum = 0;
    for (const auto& phase : r.iterations.phase_s) sum += phase[i];
    EXPECT_NEAR(sum, r.iterations.total_s[i], 1e-9);
    EXPECT_GT(r.iterations.phase_s[static_cast<size_t>(Phase::forward)][i], 0);
    EXPECT_GT(r.iterations.phase_s[static_cast<size_t>(Phase::backward)][i], 0);
  }
  ASSERT_EQ(r.ranks.size(), 1u);
  EXPECT_GT(r.ranks[0].usage.peak_rss_bytes, 0);
  EXPECT_GT(r.ranks[0].usage.cpu_utilisation, 0);
  EXPECT_EQ(r.threads, 1);
}

TEST_F(TinyMnist, ModelAndDatasetMustAgreeOnChannels) {
  config_.model = "vgg11";
  auto self = make_self_communicator();
  EXPECT_THROW(Trainer(config_, load_train_data(config_), *self), UserError);
}

TEST_F(TinyMnist, GlobalBatchMustDivideByTheRanks) {
  TrainData data = load_train_data(config_);
  EXPECT_THROW(
      testing::run_gloo_ranks(3, [&](Communicator& comm) { Trainer(config_, data, comm); }),
      UserError);
}

TEST(TinyCifar, Vgg11TrainsAFewSteps) {
  TempDir dir;
  testing::write_cifar10(dir.path(), 8);
  TrainConfig config;
  config.data_dir = dir.path();
  config.global_batch = 8;
  config.max_iters = 3;
  config.eval_limit = 8;
  std::FILE* quiet = std::tmpfile();
  auto self = make_self_communicator();
  RunRecord r = Trainer(config, load_train_data(config), *self, quiet).run();
  std::fclose(quiet);
  EXPECT_EQ(r.iterations.size(), 3u);
  for (double loss : r.iterations.loss) EXPECT_TRUE(std::isfinite(loss));
  EXPECT_EQ(r.system["datasets"].size(), 6u);
}

}  // namespace
}  // namespace dtbench
