#include "common/watchdog.h"

#include <fmt/core.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace dtbench {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Watchdog::Watchdog(int timeout_s, std::string who)
    : timeout_s_(timeout_s), who_(std::move(who)), last_beat_ms_(now_ms()) {
  if (timeout_s_ > 0) thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::beat() {
  last_beat_ms_ = now_ms();
}

void Watchdog::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stopping_; })) {
    if (now_ms() - last_beat_ms_.load() > 1000LL * timeout_s_) {
      fmt::print(stderr,
                 "dtbench-train: error: {}: no progress for {} s (--timeout-s): a peer died or "
                 "the network stopped\n",
                 who_, timeout_s_);
      std::fflush(stderr);
      std::_Exit(3);
    }
  }
}

}  // namespace dtbench
