#pragma once
// Progress of a matrix run: one line per experiment ("[k/N] status name time | elapsed, ETA"),
// and on a terminal a live line for the running experiment. The ETA is the remaining
// experiments' estimates scaled by how long the finished ones took against theirs.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace dtbench {

class Progress {
 public:
  Progress(std::vector<double> estimates_s, std::FILE* out);
  void start(size_t index, const std::string& name);
  void tick(double running_s);  // redraws the live line (terminal only)
  // status: ok, failed, timeout, skipped, done (finished earlier), ...
  // note: appended after the time (e.g. the attempt's foreign load).
  void finish(const std::string& status, double seconds, bool measured,
              const std::string& note = "");
  double eta_s(double running_s) const;

 private:
  void clear_live_line();
  std::vector<double> estimates_;
  std::FILE* out_;
  bool tty_;
  size_t index_ = 0;
  std::string name_;
  double measured_s_ = 0, measured_estimate_s_ = 0;
  std::vector<bool> finished_;
  std::chrono::steady_clock::time_point began_;
};

// "1h02m", "4m10s", "12.3s".
std::string format_duration(double seconds);

}  // namespace dtbench
