#pragma once
// Waiting for a condition with a deadline, never for a fixed time.
#include <chrono>
#include <thread>

namespace dtbench {

// Polls ready() about every 50 ms until it holds (true) or seconds have passed (false).
template <class Ready>
bool poll_until(Ready&& ready, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace dtbench
