// The report's first stage in-process: tables as CSV and Markdown, results directories read into
// systems (one machine on two stacks or links is two), and every figure with its script.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "common/software_stack.h"
#include "fixtures.h"
#include "report/document/figures.h"
#include "report/predict/model_inputs.h"
#include "report/read/results.h"
#include "report/read/table.h"

namespace dtbench {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using testing::user_error;

const std::string kSource = DTBENCH_SOURCE_DIR;
const std::filesystem::path kModel = kSource + "/tests/fixtures/results/model-netns-4-1gbit-vm";
const std::string kSweep = "experiments/collectives/backend=gloo,filter=_allreduce_,ranks=4";

TEST(ReportTable, CsvKeepsFullPrecisionMarkdownShortens) {
  Table t;
  t.columns = {"method", "mean_s", "n"};
  t.rows = {{"ring_allreduce", 0.123456789, 39}, {"a,b", 12345678.0, 1}};
  EXPECT_EQ(t.csv(), "method,mean_s,n\nring_allreduce,0.123456789,39\n\"a,b\",12345678,1\n");
  EXPECT_EQ(t.markdown(),
            "| method | mean_s | n |\n|---|---|---|\n| ring\\_allreduce | 0.1235 | 39 |\n"
            "| a,b | 1.235e+07 | 1 |\n");
  EXPECT_THAT(t.markdown(1), HasSubstr("and 1 more rows in the CSV file"));
  EXPECT_EQ(short_number(0.0004), "4.000e-04");
  EXPECT_EQ(short_number(std::nan("")), "n/a");
}

// Builders read cells by column name: the same answers whatever the columns' order.
TEST(ReportTable, CellsByColumnNameWhateverTheOrder) {
  Table a;
  a.columns = {"method", "mean_s", "sync_share"};
  a.rows = {{"allreduce", 2.0, 0.5}, {"bucketed", 1.0, 0.1}, {"ring", 3.0, std::nan("")}};
  Table b;
  b.columns = {"sync_share", "method", "mean_s"};
  for (const auto& row : a.rows) b.rows.push_back({row[2], row[0], row[1]});
  for (const Table* t : {&a, &b}) {
    auto [low, high] = t->extremes("mean_s");
    EXPECT_EQ(t->text(low, "method"), "bucketed");
    EXPECT_EQ(t->text(high, "method"), "ring");
    EXPECT_EQ(t->text(t->extremes("sync_share").second, "method"), "allreduce");  // NaN skipped
    EXPECT_EQ(t->number(0, "mean_s"), 2.0);
    EXPECT_THROW(t->column("colour"), std::logic_error);
  }
}

// The emulated cluster's link rates and the software stack are part of the system: the same
// sweep from a cluster at 1 Gbit/s and from one with a bottleneck host, or from one machine on
// Debian 12's stack and on Debian 13's, makes two systems; the same cluster twice, one.
TEST(ReportResults, EmulatedClustersWithOtherLinksOrStacksAreOtherSystems) {
  namespace fs = std::filesystem;
  TempDir dir;
  const fs::path root = dir.path();
  std::ifstream in(kModel / "system.json");
  const nlohmann::json system = nlohmann::json::parse(in);
  for (const char* name : {"a", "b", "slow", "trixie"}) {
    fs::create_directories(root / name / kSweep);
    fs::copy(kModel / kSweep, root / name / kSweep, fs::copy_options::recursive);
    fs::copy_file(kModel / "run.json", root / name / "run.json");
    nlohmann::json s = system;
    if (std::string(name) == "slow") {
      s["network"]["spec"]["bottleneck_host"] = 3;
      s["network"]["spec"]["bottleneck_rate"] = "100mbit";
    }
    if (std::string(name) == "trixie") {  // as the harness writes it now
      s["stack"] = {{"distribution", "Debian GNU/Linux 13 (trixie)"},
                    {"compiler", "g++ 14.2.0"},
                    {"libtorch", "2.6.0+dfsg-7"},
                    {"mpi", "Open MPI 5.0.7"},
                    {"gloo", "0.0~git20231202.81925d1-3"},
                    {"python_torch", "2.6.0+dfsg-7"}};
    }
    std::ofstream(root / name / "system.json") << s.dump();
  }
  // A directory made before system.json named its stack: the stack its packages make.
  EXPECT_EQ(software_stack(system)["libtorch"], "1.13.1+dfsg-4");
  EXPECT_EQ(software_stack(system)["mpi"], "Open MPI 4.1.4");
  Results stacks = load_results({root / "a", root / "trixie"});
  ASSERT_EQ(stacks.systems.size(), 2u);
  EXPECT_THAT(stacks.systems[0].label, HasSubstr("libtorch 1.13.1, Open MPI 4.1.4"));
  EXPECT_THAT(stacks.systems[1].label, HasSubstr("libtorch 2.6.0, Open MPI 5.0.7"));
  Results same = load_results({root / "a", root / "b"});
  ASSERT_EQ(same.systems.size(), 1u);
  EXPECT_THAT(same.systems[0].label, HasSubstr("hosts netns-4, links 1gbit"));
  Results two = load_results({root / "a", root / "slow"});
  ASSERT_EQ(two.systems.size(), 2u);
  EXPECT_NE(two.systems[0].label, two.systems[1].label);
  EXPECT_THAT(two.systems[0].label + two.systems[1].label,
              HasSubstr("links 1gbit (host 3 at 100mbit)"));
  // Asked to, each directory is a system of its own, named after it: a run against a reference
  // made on the same kind of machine.
  Results apart = load_results({root / "a", (root / "b").string() + "/"}, /*each_directory=*/true);
  ASSERT_EQ(apart.systems.size(), 2u);
  EXPECT_THAT(apart.systems[0].label,
              HasSubstr("links 1gbit; libtorch 1.13.1, Open MPI 4.1.4 (a)"));
  EXPECT_THAT(apart.systems[1].label,
              HasSubstr("links 1gbit; libtorch 1.13.1, Open MPI 4.1.4 (b)"));
}

// A sweep's sizes by fours and the models' own sizes between them, as bench_collectives names
// them ("/case:lenet5" after the ranks): each read with its bytes and the model it stands for,
// and the model's sizes priced where they were measured, not on the line between the fours.
// The model fixture copied into `dir`, its Gloo allreduce sweep (Google Benchmark's JSON) edited,
// then read.
Results with_sweep_edited(const TempDir& dir, const std::function<void(nlohmann::json&)>& edit) {
  namespace fs = std::filesystem;
  const fs::path root = dir.path();
  fs::copy(kModel, root, fs::copy_options::recursive);
  const fs::path result = root / kSweep / "rep-1" / "result.json";
  nlohmann::json j = nlohmann::json::parse(std::ifstream(result));
  edit(j);
  std::ofstream(result) << j.dump();
  return load_results({root.string()});
}

TEST(ReportResults, SweepsReadTheModelsOwnSizesAmongTheOthers) {
  TempDir dir;
  Results r = with_sweep_edited(dir, [](nlohmann::json& j) {
    nlohmann::json lenet5 = j["benchmarks"][0];
    lenet5["name"] =
        "allreduce/backend:gloo/bytes:192000/ranks:4/case:lenet5/iterations:200/manual_time";
    lenet5["bytes"] = 192000;
    lenet5["real_time"] = 12345.0;
    lenet5["time_unit"] = "us";
    lenet5.erase("chained_s");  // priced at its time
    nlohmann::json vgg11 = lenet5;
    vgg11["name"] =
        "allreduce/backend:gloo/bytes:36924456/ranks:4/case:vgg11/iterations:5/manual_time";
    vgg11["bytes"] = 36924456;
    j["benchmarks"].push_back(lenet5);
    j["benchmarks"].push_back(vgg11);
  });
  ASSERT_EQ(r.systems.size(), 1u);
  std::map<int64_t, std::string> cases;
  for (const CollectiveRun& c : r.systems[0].collectives) cases[c.bytes] = c.model_case;
  EXPECT_EQ(cases.at(65536), "");
  EXPECT_EQ(cases.at(192000), "lenet5");
  EXPECT_EQ(cases.at(36924456), "vgg11");
  const model::MeasuredCost cost = sweep_of(r.systems[0], "allreduce", "gloo", 4);
  EXPECT_DOUBLE_EQ(cost.time(192000), 0.012345);
}

// A sweep whose operations each followed a rest (--rest-ms) is kept apart: what prices and
// draws the sweeps reads the operations between barriers only.
TEST(ReportResults, SweepsAfterARestAreKeptApart) {
  TempDir dir;
  size_t swept = 0;
  const Results r = with_sweep_edited(dir, [&swept](nlohmann::json& j) {
    swept = j["benchmarks"].size();
    for (auto& b : j["benchmarks"]) b["rest_s"] = 0.005;
  });
  ASSERT_EQ(r.systems.size(), 1u);
  EXPECT_EQ(r.systems[0].rested.size(), swept);
  for (const CollectiveRun& c : r.systems[0].rested) EXPECT_DOUBLE_EQ(c.rest_s, 0.005);
  for (const CollectiveRun& c : r.systems[0].collectives) {
    EXPECT_FALSE(c.op == "allreduce" && c.backend == "gloo") << c.bytes;
  }
}

TEST(ReportResults, NoResultsIsAnErrorAndEveryFigureHasItsScript) {
  TempDir dir;
  EXPECT_THAT(user_error([&] { load_results({dir / "none"}); }), HasSubstr("does not exist"));
  std::filesystem::create_directories(dir / "r/experiments");
  std::ofstream(dir / "r/run.json") << R"({"matrix": "smoke"})";
  std::ofstream(dir / "r/system.json") << R"({"hostname": "h"})";
  EXPECT_THAT(user_error([&] { load_results({dir / "r"}); }),
              HasSubstr("no finished experiments in"));
  std::set<std::string> ids;
  for (const auto& f : figure_registry()) {
    EXPECT_TRUE(ids.insert(f.id).second) << f.id;
    EXPECT_TRUE(std::filesystem::exists(kSource + "/report/figures/" + f.id + ".gp")) << f.id;
  }
  EXPECT_EQ(ids.size(), 21u);
}

}  // namespace
}  // namespace dtbench
