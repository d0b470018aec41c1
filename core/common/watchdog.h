#pragma once
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace dtbench {

// Ends the process (exit code 3, one line on stderr) when beat() has not been called for
// timeout_s seconds: a peer that died or a network that stopped must not leave a rank
// blocked in a collective forever. 0 disables it.
class Watchdog {
 public:
  Watchdog(int timeout_s, std::string who);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  void beat();

 private:
  void watch();
  int timeout_s_;
  std::string who_;
  std::atomic<int64_t> last_beat_ms_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace dtbench
