#include "run/interval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <utility>

#include "common/files.h"
#include "stats/stats.h"

namespace fs = std::filesystem;

namespace dtbench {

namespace {

// A repetition's file as it is stored, gzip-compressed or not; null where missing or not JSON.
nlohmann::json read_json(const fs::path& dir, const std::string& name) {
  return read_json_or_null(stored_file(dir.string(), name));
}

}  // namespace

RepeatedInterval interval_of(const std::string& experiment_dir) {
  RepeatedInterval r;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(experiment_dir, ec)) {
    if (!entry.is_directory() || entry.path().filename().string().rfind("rep-", 0) != 0) continue;
    const nlohmann::json status = read_json(entry.path(), "status.json");
    if (status.is_object()) r.seconds += status.value("elapsed_s", 0.0);
    const std::string state = status.is_object() ? status.value("status", "") : "";
    if (state == "failed" || state == "timeout") ++r.failed;
    const nlohmann::json result = read_json(entry.path(), "result.json");
    if (state != "ok" || !result.is_object()) continue;
    const auto mean = result.value("/summary/iteration_s/mean"_json_pointer, std::nan(""));
    if (std::isfinite(mean)) r.values_s.push_back(mean);
  }
  RepeatedInterval out = interval_of_values(std::move(r.values_s));
  out.seconds = r.seconds, out.failed = r.failed;
  return out;
}

RepeatedInterval interval_of_values(std::vector<double> values_s) {
  RepeatedInterval r;
  r.values_s = std::move(values_s);
  const Summary s = summarize(r.values_s);
  r.mean_s = s.mean, r.low_s = s.ci95_low, r.high_s = s.ci95_high;
  r.half_width = r.values_s.size() >= 2 && s.mean > 0 ? (s.ci95_high - s.ci95_low) / 2 / s.mean
                                                      : std::numeric_limits<double>::infinity();
  return r;
}

bool tight(const RepeatedInterval& r, double within, int min_repetitions) {
  return static_cast<int>(r.values_s.size()) >= min_repetitions && r.half_width <= within;
}

bool separated(const RepeatedInterval& r, const std::vector<RepeatedInterval>& others) {
  if (r.values_s.size() < 2 || others.empty()) return false;
  return std::all_of(others.begin(), others.end(), [&r](const RepeatedInterval& o) {
    return o.values_s.size() >= 2 && (r.high_s < o.low_s || o.high_s < r.low_s);
  });
}

nlohmann::json interval_json(const RepeatedInterval& r, double within, int max_repeat, bool apart) {
  const bool finite = std::isfinite(r.half_width);
  return {{"schema", "dtbench.interval/1"},
          {"statistic", "mean over repetitions of each one's mean iteration time (1..39)"},
          {"repetitions", r.values_s.size()},
          {"values_s", r.values_s},
          {"failed", r.failed},
          {"mean_s", r.mean_s},
          {"ci95_low_s", r.low_s},
          {"ci95_high_s", r.high_s},
          {"half_width", finite ? nlohmann::json(r.half_width) : nlohmann::json(nullptr)},
          {"within", within},
          {"reached", finite && r.half_width <= within},
          {"apart", apart},
          {"max_repeat", max_repeat},
          {"seconds", r.seconds}};
}

std::string interval_text(const RepeatedInterval& r) {
  const std::string width =
      std::isfinite(r.half_width) ? fmt::format("+-{:.1f}%", 100 * r.half_width) : "+-inf";
  return fmt::format("{} after {} repetition{}", width, r.values_s.size(),
                     r.values_s.size() == 1 ? "" : "s");
}

}  // namespace dtbench
