#pragma once
// How quiet the machine was while an experiment ran. A timing taken while another process used
// the CPU, or while the hypervisor gave the cores to someone else, measures contention, not the
// method. NoiseMeter samples /proc about once a second and splits the CPU time used on this
// machine into the experiment's own and everyone else's (foreign load); /proc/stat gives the
// steal. The experiment's own are its process tree (mpirun or srun and what they fork) and the
// processes that carry its marker in their environment (kExperimentMarker: the ranks that sshd or
// slurmstepd started, which are not in the tree), with their ancestors started since the
// experiment began (the launcher's helpers: prted or orted, sshd's session, slurmstepd).
// docs/harness.md says how the harness acts on it.
#include <sys/types.h>

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>

namespace dtbench {

// The environment variable every rank of an experiment gets (its value names the experiment).
inline constexpr const char* kExperimentMarker = "DTBENCH_EXPERIMENT";

struct NoiseReading {
  double wall_s = 0;
  double own_cpu_s = 0;  // the experiment's processes (user + system)
  // Of own_cpu_s, the processes outside the harness's tree, found by the marker (sampled).
  double outside_tree_cpu_s = 0;
  double foreign_cpu_s = 0;  // every other user-space process but the harness itself
  double steal_s = 0;        // time the hypervisor ran something else on our CPUs
  int cores = 1;

  // Shares of the machine's capacity (cores x wall time) over the reading.
  double foreign_load() const;
  double steal() const;
  nlohmann::json to_json() const;
};

// What counts as noisy, and what the harness does about it (`dtbench run` options).
struct NoisePolicy {
  double max_foreign_load = 0.02;  // of the machine's capacity, over an attempt
  double max_steal = 0.05;
  int tries = 3;             // attempts in all for a noisy experiment
  double quiet_wait_s = 60;  // before an attempt, wait at most this long for a quiet machine
  bool noisy(const NoiseReading& r) const;
};

class NoiseMeter {
 public:
  // root: the experiment's first process (mpirun); -1 when nothing of ours runs (idle check).
  // marker: "DTBENCH_EXPERIMENT=value" as its ranks' environment holds it; "" none.
  explicit NoiseMeter(pid_t root = -1, std::string marker = "");
  void sample();  // call about once a second; the constructor takes the first sample
  // The reading from the first sample to a final one taken now. own_cpu_s is what the tree
  // used while it was sampled; the caller may replace it by an exact figure (getrusage).
  NoiseReading finish();

 private:
  struct Seen {
    unsigned long long start_ticks = 0;
    double cpu_s = 0;
    std::string comm;     // the program: a process that execs another is looked at again
    bool marked = false;  // its environment holds the marker
  };
  bool marked(pid_t pid, const Seen& now) const;

  pid_t root_;
  std::string marker_;
  std::set<pid_t> own_;      // once seen in the tree, a process stays ours (reparented or not)
  std::set<pid_t> outside_;  // ours, but not in the harness's tree (found by the marker)
  std::map<pid_t, Seen> last_;
  double began_s_ = 0, last_s_ = 0;
  double steal0_s_ = 0;
  NoiseReading reading_;
};

// Waits until a one-second window shows foreign load and steal within the policy, or
// policy.quiet_wait_s has passed. Returns the seconds waited and, in *quiet, whether it was
// reached (at once, not quiet, when quiet_wait_s is 0). stop() is polled to give up early.
double wait_for_quiet(const NoisePolicy& policy, bool* quiet, bool (*stop)());

}  // namespace dtbench
