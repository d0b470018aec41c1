// TraceLog (core/common/trace_log.h): what it records comes back as Chrome trace events, and
// recording takes no memory from malloc while training runs (it would change how malloc reuses
// backward's large buffers: docs/traces.md).
#include "common/trace_log.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <chrono>
#include <string>
#include <vector>

namespace dtbench {
namespace {

using nlohmann::json;
using std::chrono::microseconds;

std::vector<json> of_phase(const json& events, const std::string& ph) {
  std::vector<json> found;
  for (const auto& e : events) {
    if (e.at("ph") == ph) found.push_back(e);
  }
  return found;
}

TEST(TraceLog, RecordsNothingUntilRecordingIsOn) {
  TraceLog log;
  log.instant("gradient ready", "backward", TraceLog::Clock::now(), {{"parameter", 1}});
  EXPECT_TRUE(of_phase(log.events(0), "i").empty());
}

TEST(TraceLog, EventsComeBackWithTheirTimesArgumentsAndIds) {
  TraceLog log;
  const auto origin = TraceLog::Clock::now();
  log.set_origin(origin);
  log.set_recording(true);
  log.span("forward", "phase", origin + microseconds(10), origin + microseconds(30));
  log.instant("gradient ready", "backward", origin + microseconds(40),
              {{"parameter", 7}, {"bytes", 4096}});
  log.async_span("iallreduce", "comm", origin + microseconds(50), origin + microseconds(90),
                 {{"bytes", 64}, {"ranks", 4}});
  log.async_span("iallreduce", "comm", origin + microseconds(60), origin + microseconds(95));
  const json events = log.events(3);

  const auto spans = of_phase(events, "X");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].at("name"), "forward");
  EXPECT_EQ(spans[0].at("cat"), "phase");
  EXPECT_EQ(spans[0].at("pid"), 3);
  EXPECT_DOUBLE_EQ(spans[0].at("ts").get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(spans[0].at("dur").get<double>(), 20.0);
  EXPECT_FALSE(spans[0].contains("args"));

  const auto instants = of_phase(events, "i");
  ASSERT_EQ(instants.size(), 1u);
  EXPECT_EQ(instants[0].at("args"), (json{{"parameter", 7}, {"bytes", 4096}}));
  EXPECT_EQ(instants[0].at("s"), "t");

  const auto begins = of_phase(events, "b");
  const auto ends = of_phase(events, "e");
  ASSERT_EQ(begins.size(), 2u);
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_NE(begins[0].at("id"), begins[1].at("id"));
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(begins[k].at("id"), ends[k].at("id"));
    EXPECT_FALSE(ends[k].contains("args"));
  }
  EXPECT_EQ(begins[0].at("args"), (json{{"bytes", 64}, {"ranks", 4}}));
  EXPECT_DOUBLE_EQ(ends[0].at("ts").get<double>(), 90.0);
  EXPECT_FALSE(begins[1].contains("args"));
}

// What malloc has handed out and not had back: its heap's chunks and its own mappings.
size_t malloced_bytes() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

TEST(TraceLog, RecordingTakesNoMemoryFromMalloc) {
  TraceLog log;
  log.name_thread("training");  // the track exists before recording, as in the trainer
  log.set_recording(true);
  const auto now = TraceLog::Clock::now();
  const size_t before = malloced_bytes();
  for (int64_t i = 0; i < 10000; ++i) {
    log.instant("gradient ready", "backward", now, {{"parameter", i}, {"bytes", 4 * i}});
    ScopedSpan span(&log, "allreduce", "comm", {{"bytes", i}, {"ranks", 4}});
  }
  EXPECT_EQ(malloced_bytes(), before);
  EXPECT_EQ(of_phase(log.events(0), "i").size(), 10000u);
}

}  // namespace
}  // namespace dtbench
