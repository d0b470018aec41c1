#include "record/resource_usage.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>

namespace dtbench {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6;
}

}  // namespace

int64_t minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

double children_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

ResourceMeter::ResourceMeter() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  wall0_ = now_s();
  user0_ = seconds(usage.ru_utime);
  sys0_ = seconds(usage.ru_stime);
}

ResourceUsage ResourceMeter::read() const {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  ResourceUsage r;
  r.wall_s = now_s() - wall0_;
  r.user_s = seconds(usage.ru_utime) - user0_;
  r.sys_s = seconds(usage.ru_stime) - sys0_;
  r.cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  r.cpu_utilisation = r.wall_s > 0 ? (r.user_s + r.sys_s) / r.wall_s / r.cores : 0;
  r.peak_rss_bytes = static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
  return r;
}

}  // namespace dtbench
