// Statistics and the dtbench.run/1 record: round trip, every field, atomic writes, and
// clear errors for files that are not records.
#include <gtest/gtest.h>

#include <functional>
#include <utility>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "fixtures.h"
#include "record/record.h"
#include "stats/stats.h"

namespace dtbench {
namespace {

using testing::TempDir;

TEST(Stats, SummaryOfAKnownSample) {
  Summary s = summarize({4, 1, 3, 2});
  EXPECT_EQ(s.n, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.p95, 3.85);
  EXPECT_NEAR(s.stdev, 1.2909944487, 1e-9);
  EXPECT_NEAR(s.ci95_high - s.mean, 3.182 * 1.2909944487 / 2, 1e-9);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
}

TEST(Stats, StudentTQuantiles) {
  EXPECT_NEAR(t_quantile_975(38), 2.024394, 1e-4);  // the 39-iteration window
  EXPECT_NEAR(t_quantile_975(15), 2.131450, 1e-4);
  EXPECT_NEAR(t_quantile_975(100), 1.983972, 1e-4);
  EXPECT_DOUBLE_EQ(t_quantile_975(4), 2.776);
}

TEST(Stats, WindowClipsToWhatExists) {
  std::vector<double> v = {9, 1, 2, 3};
  EXPECT_EQ(window(v, 1, 39), (std::vector<double>{1, 2, 3}));
  EXPECT_TRUE(window({9}, 1, 39).empty());
  EXPECT_EQ(summarize({}).n, 0);
}

RunRecord sample_record() {
  RunRecord r;
  r.config.model = "lenet5";
  r.config.dataset = "mnist";
  r.config.global_batch = 64;
  r.config.seed = 12345678901ULL;
  r.system = {{"hostname", "h"}, {"cores", 2}};
  r.threads = 2;
  r.bucket_bytes = {1048576, 9437184, 4};
  r.plan_inputs = {{0.5, 0.25, -1}, 1e-4, 1.2e8};
  for (int i = 0; i < 45; ++i) {
    IterationTimes t;
    for (size_t p = 0; p < kPhaseCount; ++p) t.phase_s[p] = 0.001 * (p + 1) + 1e-5 * i;
    t.total_s = 0.015 + 5e-5 * i;
    r.iterations.add(1 + i / 40, 1 + i % 40, 2.3 - 0.01 * i, t);
  }
  r.evaluations.push_back({1, 40, 1.5, 700, 1000, 0.7});
  RankUsage usage;
  usage.host = "h";
  usage.usage = {10.0, 15.0, 1.0, 0.8, 123456789, 2};
  usage.payload_sent_bytes = 1234567890123;
  usage.nic = {{"lo", {{"sent_bytes", 5}, {"received_bytes", 6}}}};
  usage.iteration_s = {0.5, 0.25};
  r.ranks.push_back(usage);
  return r;
}

TEST(Record, RoundTripsEveryField) {
  RunRecord r = sample_record();
  nlohmann::json j = to_json(r);
  for (const char* key : {"schema", "config", "system", "threads", "bucket_bytes", "plan_inputs",
                          "iterations", "evaluations", "ranks", "links", "summary"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* key : {"epoch", "step", "loss", "data_s", "forward_s", "backward_s", "sync_s",
                          "optimizer_s", "total_s"}) {
    EXPECT_EQ(j["iterations"][key].size(), 45u) << key;
  }
  EXPECT_EQ(j["schema"], "dtbench.run/2");
  EXPECT_EQ(to_json(record_from_json(j)), j);
}

TEST(Record, SummaryIsRecomputedFromIterationsOneToThirtyNine) {
  RunRecord r = sample_record();
  nlohmann::json s = to_json(r)["summary"];
  std::vector<double> timed(r.iterations.total_s.begin() + 1, r.iterations.total_s.begin() + 40);
  EXPECT_EQ(s["iteration_s"]["n"], 39);
  EXPECT_DOUBLE_EQ(s["iteration_s"]["mean"].get<double>(), summarize(timed).mean);
  EXPECT_DOUBLE_EQ(s["iteration_s"]["p95"].get<double>(), summarize(timed).p95);
  EXPECT_DOUBLE_EQ(s["final_accuracy"].get<double>(), 0.7);
  EXPECT_NEAR(s["phase_mean_s"]["sync"].get<double>(), 0.004 + 20e-5, 1e-12);
}

TEST(Record, WrittenAtomicallyAndReadBack) {
  TempDir dir;
  std::string path = dir / "nested/run.json";
  write_record(path, sample_record());
  EXPECT_EQ(to_json(read_record(path)), to_json(sample_record()));
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "nested")) {
    EXPECT_EQ(entry.path().filename(), "run.json");  // no temporary left behind
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(Record, UnknownFieldsAreIgnored) {
  nlohmann::json j = to_json(sample_record());
  j["added_by_a_newer_writer"] = 1;
  j["config"]["future_option"] = "x";
  EXPECT_EQ(record_from_json(j).config.model, "lenet5");
}

TEST(Record, BadFilesAreNamedUserErrors) {
  TempDir dir;
  std::ofstream(dir / "junk.json") << "{ not json";
  EXPECT_THROW(read_record(dir / "junk.json"), UserError);
  nlohmann::json j = to_json(sample_record());
  j["schema"] = "other/2";
  EXPECT_THROW(record_from_json(j), UserError);
  j = to_json(sample_record());
  j["iterations"]["loss"].erase(0);
  EXPECT_THROW(record_from_json(j), UserError);
  j.erase("config");
  try {
    record_from_json(j);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("config"), std::string::npos) << e.what();
  }
}

// A dtbench.run/2 record holds every field: one without is named. A dtbench.run/1 record, written
// while fields were added, reads what it lacks as its default.
TEST(Record, TheSecondSchemaHoldsEveryFieldTheFirstReadsWhatItHas) {
  const auto without = [](const std::function<void(nlohmann::json&)>& erase) {
    nlohmann::json j = to_json(sample_record());
    erase(j);
    return j;
  };
  const std::pair<const char*, nlohmann::json> incomplete[] = {
      {"\"links\"", without([](nlohmann::json& j) { j.erase("links"); })},
      {"\"topk_fraction\"", without([](nlohmann::json& j) { j["config"].erase("topk_fraction"); })},
      {"\"phase_s\"", without([](nlohmann::json& j) { j["ranks"][0].erase("phase_s"); })},
  };
  for (const auto& [lacks, j] : incomplete) {
    try {
      record_from_json(j);
      ADD_FAILURE() << "read without " << lacks;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(lacks), std::string::npos) << e.what();
    }
  }
  nlohmann::json j = to_json(sample_record());
  j["schema"] = "dtbench.run/1";
  j.erase("links");
  j.erase("bucket_bytes");
  j["config"].erase("topk_fraction");
  j["ranks"][0].erase("phase_s");
  j["ranks"][0].erase("clock");
  const RunRecord first = record_from_json(j);
  EXPECT_TRUE(first.links.empty());
  EXPECT_TRUE(first.bucket_bytes.empty());
  EXPECT_DOUBLE_EQ(first.config.sync_options.topk_fraction, SyncOptions{}.topk_fraction);
  EXPECT_TRUE(first.ranks[0].phase_s[0].empty());
}

// docs/result-record.md names every field and every setting the record writes: the list is the
// record's own.
TEST(Record, ItsDocumentNamesEveryFieldAndSettingItWrites) {
  std::ifstream in(std::string(DTBENCH_SOURCE_DIR) + "/docs/result-record.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(doc.empty());
  // As `key`, or "key" in a field's list of keys.
  const auto named = [&doc](const std::string& key) {
    return doc.find("`" + key + "`") != std::string::npos ||
           doc.find("\"" + key + "\"") != std::string::npos;
  };
  const nlohmann::json j = to_json(sample_record());
  for (const auto& [key, value] : j.items()) EXPECT_TRUE(named(key)) << key;
  for (const auto& [key, value] : j["config"].items()) EXPECT_TRUE(named(key)) << "config." << key;
  for (const auto& [key, value] : j["ranks"][0].items()) {
    EXPECT_TRUE(named(key)) << "ranks[]." << key;
  }
}

}  // namespace
}  // namespace dtbench
