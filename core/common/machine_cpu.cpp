#include "common/machine_cpu.h"

#include <unistd.h>

#include <array>
#include <fstream>
#include <string>

namespace dtbench {

double clock_ticks_per_s() {
  static const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  return hz;
}

MachineCpu read_machine_cpu() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  // user nice system idle iowait irq softirq steal, in clock ticks
  std::array<double, 8> ticks{};
  in >> cpu;
  for (double& t : ticks) in >> t;
  if (!in || cpu != "cpu") return {};
  const double hz = clock_ticks_per_s();
  MachineCpu m;
  m.busy_s = (ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]) / hz;
  m.steal_s = ticks[7] / hz;
  return m;
}

std::string machine_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  in >> id;
  return id;
}

}  // namespace dtbench
