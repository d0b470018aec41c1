#include "run/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace dtbench {

std::string format_duration(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f}s", seconds);
  auto s = static_cast<int64_t>(std::lround(seconds));
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

Progress::Progress(std::vector<double> estimates_s, std::FILE* out)
    : estimates_(std::move(estimates_s)),
      out_(out),
      tty_(isatty(fileno(out)) != 0),
      finished_(estimates_.size(), false),
      began_(std::chrono::steady_clock::now()) {}

void Progress::start(size_t index, const std::string& name) {
  index_ = index;
  name_ = name;
  tick(0);
}

double Progress::eta_s(double running_s) const {
  double scale = measured_estimate_s_ > 0 ? measured_s_ / measured_estimate_s_ : 1.0;
  double left = 0;
  for (size_t i = 0; i < estimates_.size(); ++i) {
    if (finished_[i]) continue;
    double own = estimates_[i] * scale;
    left += i == index_ ? std::max(0.0, own - running_s) : own;
  }
  return left;
}

void Progress::tick(double running_s) {
  if (!tty_) return;
  const int width = 20;
  size_t done = std::count(finished_.begin(), finished_.end(), true);
  int filled = static_cast<int>(width * done / std::max<size_t>(1, estimates_.size()));
  std::string bar = std::string(filled, '#') + std::string(width - filled, '.');
  std::string name = name_.size() > 60 ? name_.substr(0, 57) + "..." : name_;
  fmt::print(out_, "\r\033[K[{}] {}/{} {} {} ETA {}", bar, index_ + 1, estimates_.size(), name,
             format_duration(running_s), format_duration(eta_s(running_s)));
  std::fflush(out_);
}

void Progress::clear_live_line() {
  if (tty_) fmt::print(out_, "\r\033[K");
}

void Progress::finish(const std::string& status, double seconds, bool measured,
                      const std::string& note) {
  finished_[index_] = true;
  if (measured) {
    measured_s_ += seconds;
    measured_estimate_s_ += estimates_[index_];
  }
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count();
  clear_live_line();
  fmt::print(out_, "[{}/{}] {:<7} {} {}{} | elapsed {}, ETA {}\n", index_ + 1, estimates_.size(),
             status, name_, format_duration(seconds), note.empty() ? "" : " (" + note + ")",
             format_duration(elapsed), format_duration(eta_s(0)));
  std::fflush(out_);
}

}  // namespace dtbench
