#pragma once
#include <cstdint>

namespace dtbench {

// CPU time and memory of this process since the meter was made.
struct ResourceUsage {
  double wall_s = 0, user_s = 0, sys_s = 0;
  double cpu_utilisation = 0;  // (user + sys) / wall / cores: 1.0 = every core busy throughout
  int64_t peak_rss_bytes = 0;
  int cores = 0;
};

// Minor page faults of this process so far (every thread): pages touched for the first time
// since they were mapped, e.g. memory malloc took afresh from the kernel.
int64_t minor_faults();

// User + system CPU seconds of this process's children that have ended and been waited for.
double children_cpu_s();

class ResourceMeter {
 public:
  ResourceMeter();
  ResourceUsage read() const;

 private:
  double wall0_, user0_, sys0_;
};

}  // namespace dtbench
