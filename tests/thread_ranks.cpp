#include "thread_ranks.h"

#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "comm/gloo_communicator.h"

namespace dtbench::testing {

void run_gloo_ranks(int n, const std::function<void(Communicator&)>& body) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::exception_ptr first_error;
  std::mutex mutex;
  std::vector<std::thread> ranks;
  ranks.reserve(n);
  for (int r = 0; r < n; ++r) {
    ranks.emplace_back([&, r] {
      try {
        auto comm = make_gloo_communicator(store, r, n, std::chrono::seconds(60), /*local=*/true);
        body(*comm);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!first_error) first_error = std::current_exception();
      }
    });
  }
  for (auto& t : ranks) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace dtbench::testing
