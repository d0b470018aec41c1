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

TraceArgs::TraceArgs(std::initializer_list<std::pair<const char*, int64_t>> args) {
  for (const auto& a : args) {
    if (size_ < args_.size()) args_[size_++] = a;
  }
}

nlohmann::json TraceArgs::json() const {
  if (size_ == 0) return nullptr;
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < size_; ++i) j[args_[i].first] = args_[i].second;
  return j;
}

void TraceLog::add(Event e) {
  std::lock_guard<std::mutex> lock(mutex_);
  e.track = track_locked();
  events_.push_back(e);
}

void TraceLog::span(const char* name, const char* category, Clock::time_point begin,
                    Clock::time_point end, TraceArgs args) {
  if (recording_) add({name, category, Kind::span, 0, begin, end, args});
}

void TraceLog::instant(const char* name, const char* category, Clock::time_point at,
                       TraceArgs args) {
  if (recording_) add({name, category, Kind::instant, 0, at, at, args});
}

void TraceLog::async_span(const char* name, const char* category, Clock::time_point begin,
                          Clock::time_point end, TraceArgs args) {
  if (recording_) add({name, category, Kind::async, 0, begin, end, args});
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
  int64_t async_id = 0;
  for (const Event& e : events_) {
    auto event = [&](const char* ph, Clock::time_point at, nlohmann::json args) {
      nlohmann::json j = {{"name", e.name},   {"cat", e.category}, {"ph", ph},
                          {"ts", micros(at)}, {"tid", e.track},    {"pid", rank}};
      if (!args.is_null()) j["args"] = std::move(args);
      return j;
    };
    switch (e.kind) {
      case Kind::span:
        all.push_back(event("X", e.begin, e.args.json()));
        all.back()["dur"] = micros(e.end) - micros(e.begin);
        break;
      case Kind::instant:
        all.push_back(event("i", e.begin, e.args.json()));
        all.back()["s"] = "t";
        break;
      case Kind::async:
        ++async_id;
        all.push_back(event("b", e.begin, e.args.json()));
        all.back()["id"] = async_id;
        all.push_back(event("e", e.end, nullptr));
        all.back()["id"] = async_id;
        break;
    }
  }
  return all;
}

}  // namespace dtbench
