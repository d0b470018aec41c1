// --trace: the Chrome trace a run writes (docs/traces.md), from 2 Gloo ranks as threads training
// LeNet-5 on a small MNIST: valid JSON, a track per rank, spans that nest, phases that add up to
// each rank's measured iteration times, each gradient's arrival and each operation's bytes.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "fixtures.h"
#include "models/make_model.h"
#include "record/record.h"
#include "report/traces/stragglers.h"
#include "thread_ranks.h"
#include "train/trainer.h"
#include "train_checks.h"

namespace dtbench::testing {
namespace {

using nlohmann::json;

struct Traced {
  RunRecord record;
  json trace;
};

// A run of `iterations` on 2 ranks with --trace; rank 0's record and the trace file.
Traced traced_run(const std::string& sync, const std::string& mode, int iterations) {
  TempDir dir;
  write_mnist(dir.path(), 320, 40, /*gzip=*/false);
  Traced out;
  run_gloo_ranks(2, [&](Communicator& comm) {
    TrainConfig config = tiny_lenet_config(dir.path());
    config.sync = sync;
    config.sync_options.mode = parse_mode(mode);
    config.max_iters = iterations;
    config.trace = dir.path() + "/trace.json";
    std::FILE* quiet = std::tmpfile();
    RunRecord record = Trainer(config, load_train_data(config), comm, quiet).run();
    std::fclose(quiet);
    if (comm.rank() == 0) out.record = record;
  });
  std::ifstream in(dir.path() + "/trace.json");
  out.trace = json::parse(in);  // throws if it is not JSON
  return out;
}

std::vector<json> events_where(const json& trace, int pid, const std::string& ph,
                               const std::string& cat = "") {
  std::vector<json> found;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("pid") == pid && e.at("ph") == ph && (cat.empty() || e.value("cat", "") == cat)) {
      found.push_back(e);
    }
  }
  return found;
}

double end_of(const json& e) {
  return e.at("ts").get<double>() + e.at("dur").get<double>();
}

// Complete spans on one track either nest or follow each other; never overlap in part.
void expect_nested(const json& trace, int pid) {
  std::map<int, std::vector<json>> tracks;
  for (const auto& e : events_where(trace, pid, "X")) tracks[e.at("tid").get<int>()].push_back(e);
  for (auto& [tid, spans] : tracks) {
    std::sort(spans.begin(), spans.end(), [](const json& a, const json& b) {
      return std::make_pair(a.at("ts").get<double>(), -a.at("dur").get<double>()) <
             std::make_pair(b.at("ts").get<double>(), -b.at("dur").get<double>());
    });
    std::vector<double> open;  // ends of the spans enclosing the current one
    for (const auto& s : spans) {
      while (!open.empty() && open.back() <= s.at("ts").get<double>()) open.pop_back();
      EXPECT_TRUE(open.empty() || end_of(s) <= open.back() + 1e-3)
          << "rank " << pid << " track " << tid << ": " << s.dump() << " overlaps its parent";
      open.push_back(end_of(s));
    }
  }
}

TEST(Trace, IsValidJsonWithATrackPerRankAndPhasesThatAddUpToTheMeasuredTimes) {
  const int iterations = 6;  // iteration 0 is not traced: 1..5 are
  Traced run = traced_run("allreduce", "blocking", iterations);
  ASSERT_EQ(run.record.ranks.size(), 2u);
  EXPECT_EQ(run.trace.at("otherData").at("sync"), "allreduce");
  const auto params = make_model("lenet5")->parameters();
  int64_t model_bytes = 0;
  for (const auto& p : params) model_bytes += p.nbytes();
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE(rank);
    const auto& measured = run.record.ranks[rank].iteration_s;
    auto spans = events_where(run.trace, rank, "X", "iteration");
    ASSERT_EQ(spans.size(), static_cast<size_t>(iterations - 1));
    const auto phases = events_where(run.trace, rank, "X", "phase");
    const auto comm = events_where(run.trace, rank, "X", "comm");
    for (const auto& it : spans) {
      const int64_t i = it.at("args").at("iteration");
      ASSERT_GE(i, 1);
      ASSERT_LT(i, iterations);
      const double begin = it.at("ts"), end = end_of(it);
      EXPECT_NEAR(it.at("dur").get<double>() * 1e-6, measured[i], 1e-6);
      double phase_us = 0, comm_bytes = 0;
      std::set<std::string> names;
      for (const auto& p : phases) {
        if (p.at("ts").get<double>() >= begin && end_of(p) <= end + 1e-3) {
          phase_us += p.at("dur").get<double>();
          names.insert(p.at("name").get<std::string>());
        }
      }
      EXPECT_NEAR(phase_us, it.at("dur").get<double>(), 1e-2);  // float microseconds
      EXPECT_EQ(names, (std::set<std::string>{"data", "forward", "backward", "sync", "optimizer"}));
      for (const auto& c : comm) {
        if (c.at("ts").get<double>() >= begin && end_of(c) <= end + 1e-3) {
          comm_bytes += c.at("args").at("bytes").get<double>();
          EXPECT_EQ(c.at("name"), "allreduce");
          EXPECT_EQ(c.at("args").at("ranks"), 2);
        }
      }
      EXPECT_EQ(comm_bytes, static_cast<double>(model_bytes));  // every gradient, once
    }
    // Each parameter's gradient arrives once per traced iteration.
    EXPECT_EQ(events_where(run.trace, rank, "i", "backward").size(),
              params.size() * (iterations - 1));
    expect_nested(run.trace, rank);
    bool named = false;
    for (const auto& m : events_where(run.trace, rank, "M")) {
      if (m.at("name") == "process_name")
        named = m.at("args").at("name") == fmt::format("rank {}", rank);
    }
    EXPECT_TRUE(named);
  }
}

TEST(Trace, NonblockingOperationsAreAsyncSpansWithTheirBytes) {
  Traced run = traced_run("bucketed", "overlap", 4);
  for (int rank = 0; rank < 2; ++rank) {
    auto begins = events_where(run.trace, rank, "b", "comm");
    auto ends = events_where(run.trace, rank, "e", "comm");
    ASSERT_EQ(begins.size(), ends.size());
    ASSERT_FALSE(begins.empty());
    const size_t per_iteration = run.record.bucket_bytes.size();
    EXPECT_EQ(begins.size(), 3 * per_iteration);  // every bucket of iterations 1..3
    double bytes = 0;
    for (const auto& b : begins) bytes += b.at("args").at("bytes").get<double>();
    double bucket_bytes = 0;
    for (int64_t b : run.record.bucket_bytes) bucket_bytes += static_cast<double>(b);
    EXPECT_EQ(bytes, 3 * bucket_bytes);
    // Each ends when Gloo completed it: after its launch, and before finish() (the iteration's
    // first sync span, which waits for every bucket) returned.
    const auto syncs = events_where(run.trace, rank, "X", "phase");
    for (const auto& b : begins) {
      auto end = std::find_if(ends.begin(), ends.end(),
                              [&](const json& e) { return e.at("id") == b.at("id"); });
      ASSERT_NE(end, ends.end());
      const double begin_us = b.at("ts"), end_us = end->at("ts");
      EXPECT_GE(end_us, begin_us);
      double sync_end = -1;
      for (const auto& p : syncs) {
        if (p.at("name") == "sync" && p.at("ts").get<double>() >= begin_us) {
          sync_end = end_of(p);
          break;
        }
      }
      EXPECT_LE(end_us, sync_end + 1e-3) << b.dump();
    }
    expect_nested(run.trace, rank);
  }
}

// Stale mode sends step t's gradients as step t+1 begins and waits for them in its finish():
// every sum runs inside a timed iteration (so the trainer's own collectives between iterations
// never wait behind one), each iteration carrying the previous step's gradients once.
TEST(Trace, StaleSumsRunInsideTheIterationThatSendsThem) {
  const int iterations = 6;
  Traced run = traced_run("allreduce", "stale", iterations);
  const auto params = make_model("lenet5")->parameters();
  int64_t model_bytes = 0;
  for (const auto& p : params) model_bytes += p.nbytes();
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE(rank);
    const auto spans = events_where(run.trace, rank, "X", "iteration");
    ASSERT_EQ(spans.size(), static_cast<size_t>(iterations - 1));
    const auto comm = events_where(run.trace, rank, "X", "comm");
    EXPECT_EQ(comm.size(), params.size() * (iterations - 1));
    double inside = 0;
    for (const auto& c : comm) {
      const bool in_one = std::any_of(spans.begin(), spans.end(), [&](const json& it) {
        return c.at("ts").get<double>() >= it.at("ts").get<double>() &&
               end_of(c) <= end_of(it) + 1e-3;
      });
      EXPECT_TRUE(in_one) << c.dump();
      if (in_one) inside += c.at("args").at("bytes").get<double>();
    }
    EXPECT_EQ(inside, static_cast<double>(model_bytes * (iterations - 1)));
  }
}

// c10d_ddp's Reducer calls Gloo itself: traced, it runs DDP's built-in allreduce hook, which
// records each bucket's allreduce (every gradient once per iteration), and trains exactly as the
// Reducer's own path does.
TEST(Trace, TheDdpEnginesBucketsAreInTheTraceAndItTrainsAlike) {
  const int iterations = 4;
  Traced run = traced_run("c10d_ddp", "overlap", iterations);
  int64_t gradient_bytes = 0;
  {
    auto model = make_model("lenet5");
    for (const auto& p : model->parameters()) gradient_bytes += p.numel() * p.element_size();
  }
  for (int rank = 0; rank < 2; ++rank) {
    auto begins = events_where(run.trace, rank, "b", "comm");
    ASSERT_EQ(begins.size(), events_where(run.trace, rank, "e", "comm").size());
    double bytes = 0;
    for (const auto& b : begins) {
      EXPECT_EQ(b.at("name"), "iallreduce");
      bytes += b.at("args").at("bytes").get<double>();
    }
    EXPECT_EQ(bytes, static_cast<double>((iterations - 1) * gradient_bytes))
        << "iterations 1.." << iterations - 1 << ", every gradient once";
  }
  TempDir dir;
  write_mnist(dir.path(), 320, 40, /*gzip=*/false);
  std::vector<double> untraced;
  run_gloo_ranks(2, [&](Communicator& comm) {
    auto mine = losses_with(comm, tiny_lenet_config(dir.path()), "c10d_ddp", "overlap", iterations);
    if (comm.rank() == 0) untraced = mine;
  });
  EXPECT_EQ(run.record.iterations.loss, untraced);
}

// A traced run with a slowed rank: the trace's arrivals name it as the one the others wait for
// (report/traces/stragglers.h), however long they wait on this machine.
TEST(Trace, TheSlowedRankIsTheOneTheOthersWaitFor) {
  TempDir dir;
  write_mnist(dir.path(), 320, 40, /*gzip=*/false);
  run_gloo_ranks(4, [&](Communicator& comm) {
    TrainConfig config = tiny_lenet_config(dir.path());
    config.sync = "allreduce";
    config.max_iters = 8;
    config.slow_rank = 2;
    config.slow_ms = 50;
    config.trace = dir.path() + "/trace.json";
    std::FILE* quiet = std::tmpfile();
    Trainer(config, load_train_data(config), comm, quiet).run();
    std::fclose(quiet);
  });
  std::ifstream in(dir.path() + "/trace.json");
  const Stragglers s = stragglers_of(json::parse(in).at("traceEvents"));
  EXPECT_EQ(s.ranks, 4);
  EXPECT_GT(s.iterations, 0);
  EXPECT_EQ(s.straggler, 2) << stragglers_text(s);
  EXPECT_GT(s.others_wait_s, 0);
}

}  // namespace
}  // namespace dtbench::testing
