#pragma once
// What this machine's CPUs did since boot, from /proc/stat's first line: every process and the
// kernel (interrupts and softirqs, where the network stack does its work) together. On the
// emulated cluster every namespace reads the same machine.
#include <string>

namespace dtbench {

struct MachineCpu {
  double busy_s = 0;   // user + nice + system + irq + softirq, summed over the cores
  double steal_s = 0;  // time the hypervisor ran something else on these cores
};

// The kernel's clock tick (USER_HZ), the unit of /proc's CPU times.
double clock_ticks_per_s();

// Zeros when /proc/stat cannot be read.
MachineCpu read_machine_cpu();

// The running kernel's boot id: the same for every process (and network namespace) on one
// machine, different across machines; empty if unreadable.
std::string machine_id();

}  // namespace dtbench
