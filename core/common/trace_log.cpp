#include "common/trace_log.h"

#include <fmt/core.h>

namespace dtbench {

void TraceLog::name_thread(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  track_names_[track_locked()] = name;
}

int TraceLog::track_locked() {
  auto [it, added] = tracks_.emplace(std::this_thread::get_id(), static_cast<int>(tracks_.size()));
  if (added) track_names_.push_back(fmt::format("communication thread {}", it->second));
  return it->second;
}

double TraceLog::micros(Clock::time_point t) const {
  return std::chrono::duration<double, std::micro>(t - origin_).count();
}

nlohmann::json& TraceLog::add_locked(const std::string& name, const char* category, const char* ph,
                                     Clock::time_point at, int track, nlohmann::json args) {
  events_.push_back(
      {{"name", name}, {"cat", category}, {"ph", ph}, {"ts", micros(at)}, {"tid", track}});
  if (!args.is_null()) events_.back()["args"] = std::move(args);
  return events_.back();
}

void TraceLog::span(const std::string& name, const char* category, Clock::time_point begin,
                    Clock::time_point end, nlohmann::json args) {
  if (!recording_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  add_locked(name, category, "X", begin, track_locked(), std::move(args))["dur"] =
      micros(end) - micros(begin);
}

void TraceLog::instant(const std::string& name, const char* category, Clock::time_point at,
                       nlohmann::json args) {
  if (!recording_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  add_locked(name, category, "i", at, track_locked(), std::move(args))["s"] = "t";
}

void TraceLog::async_span(const std::string& name, const char* category, Clock::time_point begin,
                          Clock::time_point end, nlohmann::json args) {
  if (!recording_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t id = ++async_ids_;
  const int track = track_locked();
  add_locked(name, category, "b", begin, track, std::move(args))["id"] = id;
  add_locked(name, category, "e", end, track, nullptr)["id"] = id;
}

nlohmann::json TraceLog::events(int rank) const {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::json all = nlohmann::json::array();
  all.push_back({{"name", "process_name"},
                 {"ph", "M"},
                 {"pid", rank},
                 {"tid", 0},
                 {"args", {{"name", fmt::format("rank {}", rank)}}}});
  all.push_back({{"name", "process_sort_index"},
                 {"ph", "M"},
                 {"pid", rank},
                 {"tid", 0},
                 {"args", {{"sort_index", rank}}}});
  for (size_t t = 0; t < track_names_.size(); ++t) {
    all.push_back({{"name", "thread_name"},
                   {"ph", "M"},
                   {"pid", rank},
                   {"tid", t},
                   {"args", {{"name", track_names_[t]}}}});
  }
  for (nlohmann::json e : events_) {
    e["pid"] = rank;
    all.push_back(std::move(e));
  }
  return all;
}

}  // namespace dtbench
