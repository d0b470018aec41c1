#pragma once
// Child processes started from an argv (never a shell string), in their own process group so
// that a timeout or Ctrl-C can end the whole tree (mpirun and its ranks).
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dtbench {

struct ProcessOutcome {
  int exit_code = 0;         // the exit status, or 128 + signal when killed by a signal
  bool timed_out = false;    // killed because timeout_s passed
  bool interrupted = false;  // killed because the harness got SIGINT/SIGTERM
  double elapsed_s = 0;
};

struct ProcessSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // added to (or replacing in) the inherited environment
  std::string stdout_path, stderr_path;    // "" inherits the harness's
  double timeout_s = 0;                    // 0: none
  std::function<void(double elapsed_s)> tick;  // called about once a second while it runs
  std::function<void(int pid)> started;        // called once the child runs, with its pid
  // When set (and stderr_path is ""), the child's stderr comes through a pipe and each of its
  // lines, without the newline, goes here as it arrives.
  std::function<void(const std::string& line)> stderr_line;
};

// Runs spec to completion, timeout or interruption. On either of the last two the process group
// gets SIGTERM, then SIGKILL after a grace period. Returns once every process the child left
// behind has exited too (they are reaped here, so that RUSAGE_CHILDREN counts the whole tree;
// killed after a grace period). UserError when argv[0] cannot be executed.
ProcessOutcome run_process(const ProcessSpec& spec);

// Runs argv (env added to the inherited environment) and returns its exit code, with stdout and
// stderr together in *output.
int run_captured(const std::vector<std::string>& argv, std::string* output,
                 const std::map<std::string, std::string>& env = {});

// Runs argv, which must succeed: RunError "`argv` failed: <first line of its output>" otherwise.
void run_checked(const std::vector<std::string>& argv);

// Starts argv as a daemon that outlives this process and is not its child (nor reaped by
// run_process): a session of its own, stdin from /dev/null, stdout and stderr appended to
// log_path. Returns its pid. UserError when argv[0] cannot be executed.
int start_daemon(const std::vector<std::string>& argv, const std::string& log_path);

// From now on SIGINT and SIGTERM only set a flag that run_process and the caller poll.
void catch_interrupts();
bool interrupted();

}  // namespace dtbench
