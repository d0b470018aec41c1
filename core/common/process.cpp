#include "common/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"

namespace dtbench {
namespace {

std::atomic<bool> g_interrupted{false};

void on_signal(int) {
  g_interrupted = true;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

void redirect(const std::string& path, int fd) {
  if (path.empty()) return;
  int file = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file < 0 || dup2(file, fd) < 0) _exit(126);
}

// argv as execvp takes it, ending in a null pointer; valid while argv lives.
std::vector<char*> exec_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  out.reserve(argv.size() + 1);
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

// In the child after fork, until exec. (The harness is single-threaded, so setenv is safe.)
[[noreturn]] void exec_child(const ProcessSpec& spec, std::vector<char*>& argv, pid_t parent,
                             int error_pipe, int stderr_pipe) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGTERM);  // the harness killed outright takes the run with it
  if (getppid() != parent) _exit(126);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  for (const auto& [key, value] : spec.env) setenv(key.c_str(), value.c_str(), 1);
  redirect(spec.stdout_path, STDOUT_FILENO);
  if (stderr_pipe >= 0) {
    dup2(stderr_pipe, STDERR_FILENO);
  } else if (!spec.stderr_path.empty() && spec.stderr_path == spec.stdout_path) {
    dup2(STDOUT_FILENO, STDERR_FILENO);
  } else {
    redirect(spec.stderr_path, STDERR_FILENO);
  }
  execvp(argv[0], argv.data());
  int error = errno;
  (void)!write(error_pipe, &error, sizeof(error));
  _exit(127);
}

// Starts the child; *stderr_read is the read end of its stderr's pipe when spec.stderr_line is
// set, -1 otherwise.
pid_t start(const ProcessSpec& spec, int* stderr_read) {
  std::vector<char*> argv = exec_argv(spec.argv);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw RunError("pipe() failed");
  int err_fds[2] = {-1, -1};
  if (spec.stderr_line && spec.stderr_path.empty() && pipe2(err_fds, O_CLOEXEC) != 0) {
    throw RunError("pipe() failed");
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) exec_child(spec, argv, parent, pipe_fds[1], err_fds[1]);
  close(pipe_fds[1]);
  if (err_fds[1] >= 0) close(err_fds[1]);
  if (err_fds[0] >= 0) fcntl(err_fds[0], F_SETFL, O_NONBLOCK);
  *stderr_read = err_fds[0];
  int error = 0;
  ssize_t got = read(pipe_fds[0], &error, sizeof(error));
  close(pipe_fds[0]);
  if (pid < 0) throw RunError("fork() failed");
  if (got == sizeof(error)) {
    waitpid(pid, nullptr, 0);
    if (*stderr_read >= 0) close(*stderr_read);
    throw UserError(fmt::format("cannot run {}: {}", spec.argv[0], std::strerror(error)));
  }
  setpgid(pid, pid);  // also here, so that no kill can come before the child's own setpgid
  return pid;
}

// What the child left behind comes back here: the harness is the subreaper of its children's
// descendants (an mpirun may end before the launch agents that ran its ranks), so that their
// CPU time reaches RUSAGE_CHILDREN when they are reaped.
std::atomic<bool> g_subreaper{false};  // set once run_process has made this a subreaper

void become_subreaper() {
  if (!g_subreaper.exchange(true)) prctl(PR_SET_CHILD_SUBREAPER, 1);
}

// This process's living children (the kernel's list; empty where it does not keep one).
std::vector<pid_t> children() {
  std::ifstream in("/proc/self/task/" + std::to_string(getpid()) + "/children");
  std::vector<pid_t> pids;
  for (pid_t pid = 0; in >> pid;) pids.push_back(pid);
  return pids;
}

// Reaps the orphans the child left: waits for them up to kOrphanGrace_s, then kills what is left.
void reap_orphans() {
  constexpr double kOrphanGrace_s = 10;
  const auto began = std::chrono::steady_clock::now();
  bool killed = false;
  while (true) {
    const pid_t done = waitpid(-1, nullptr, WNOHANG);
    if (done > 0) continue;
    if (done < 0) return;  // no child left
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (waited > kOrphanGrace_s) {
      if (killed) return;  // not reaped after SIGKILL either: leave it
      for (pid_t pid : children()) kill(pid, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Lines read from a nonblocking pipe, passed on whole.
class LineReader {
 public:
  LineReader(int fd, std::function<void(const std::string&)> sink)
      : fd_(fd), sink_(std::move(sink)) {}
  ~LineReader() {
    if (fd_ >= 0) close(fd_);
  }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Waits up to timeout_ms for something to read (just sleeps without a pipe), then reads it.
  void wait(int timeout_ms) {
    if (fd_ < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
      return;
    }
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) > 0) drain();
  }
  // Reads what is there now; at the end (or when whoever holds the pipe is gone), the rest.
  void drain(bool last = false) {
    if (fd_ < 0) return;
    char buffer[4096];
    ssize_t got = 0;
    while ((got = read(fd_, buffer, sizeof(buffer))) > 0) {
      pending_.append(buffer, static_cast<size_t>(got));
      for (size_t end = 0; (end = pending_.find('\n')) != std::string::npos;) {
        sink_(pending_.substr(0, end));
        pending_.erase(0, end + 1);
      }
    }
    if (last && !pending_.empty()) sink_(pending_);
    if (last) pending_.clear();
  }

 private:
  int fd_;
  std::function<void(const std::string&)> sink_;
  std::string pending_;
};

}  // namespace

void catch_interrupts() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interrupted() {
  return g_interrupted;
}

ProcessOutcome run_process(const ProcessSpec& spec) {
  using clock = std::chrono::steady_clock;
  auto began = clock::now();
  become_subreaper();
  int stderr_read = -1;
  pid_t pid = start(spec, &stderr_read);
  LineReader stderr_lines(stderr_read, spec.stderr_line);
  if (spec.started) spec.started(pid);
  ProcessOutcome outcome;
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - began).count(); };
  double next_tick = 1, kill_at = -1;
  int status = 0;
  while (true) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    double now = elapsed();
    if (kill_at < 0 && (g_interrupted || (spec.timeout_s > 0 && now > spec.timeout_s))) {
      outcome.interrupted = g_interrupted;
      outcome.timed_out = !g_interrupted;
      kill(-pid, SIGTERM);
      kill_at = now + 5;
    } else if (kill_at > 0 && now > kill_at) {
      kill(-pid, SIGKILL);
      kill_at = 1e300;
    }
    if (spec.tick && now >= next_tick) {
      spec.tick(now);
      next_tick = now + 1;
    }
    stderr_lines.wait(50);
  }
  if (kill_at > 0) kill(-pid, SIGKILL);  // whatever of the group outlived mpirun
  stderr_lines.drain();
  reap_orphans();
  stderr_lines.drain(/*last=*/true);
  outcome.exit_code = exit_code_of(status);
  outcome.elapsed_s = elapsed();
  return outcome;
}

void run_checked(const std::vector<std::string>& argv) {
  std::string out;
  if (run_captured(argv, &out) != 0) {
    throw RunError(fmt::format("`{}` failed: {}", fmt::join(argv, " "), first_line(out)));
  }
}

int start_daemon(const std::vector<std::string>& argv, const std::string& log_path) {
  std::vector<char*> args = exec_argv(argv);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw RunError("pipe() failed");
  // The daemon is a grandchild whose parent exits at once: with this process no subreaper
  // meanwhile, it goes to init rather than to run_process's reaping.
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  const pid_t child = fork();
  if (child == 0) {
    setsid();
    const pid_t daemon = fork();
    if (daemon != 0) {
      (void)!write(pipe_fds[1], &daemon, sizeof(daemon));
      _exit(daemon > 0 ? 0 : 1);
    }
    const int in = open("/dev/null", O_RDONLY);
    const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || log < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(log, STDOUT_FILENO) < 0 ||
        dup2(log, STDERR_FILENO) < 0) {
      _exit(126);
    }
    execvp(args[0], args.data());
    const int error = errno;
    (void)!write(pipe_fds[1], &error, sizeof(error));
    _exit(127);
  }
  close(pipe_fds[1]);
  pid_t daemon = -1;
  int error = 0;
  const bool got_pid = child > 0 && read(pipe_fds[0], &daemon, sizeof(daemon)) == sizeof(daemon);
  const bool failed = read(pipe_fds[0], &error, sizeof(error)) == sizeof(error);
  close(pipe_fds[0]);
  if (child > 0) waitpid(child, nullptr, 0);
  if (g_subreaper) prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (!got_pid || daemon < 0) throw RunError("fork() failed");
  if (failed) throw UserError(fmt::format("cannot run {}: {}", argv[0], std::strerror(error)));
  return daemon;
}

int run_captured(const std::vector<std::string>& argv, std::string* output,
                 const std::map<std::string, std::string>& env) {
  char path[] = "/tmp/dtbench-capture-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) throw RunError("cannot create a temporary file in /tmp");
  close(fd);
  ProcessSpec spec;
  spec.argv = argv;
  spec.env = env;
  spec.stdout_path = path;
  spec.stderr_path = path;
  ProcessOutcome outcome;
  try {
    outcome = run_process(spec);
  } catch (...) {
    unlink(path);
    throw;
  }
  if (output != nullptr) {
    output->clear();
    FILE* in = std::fopen(path, "r");
    char buffer[4096];
    for (size_t n; in != nullptr && (n = std::fread(buffer, 1, sizeof(buffer), in)) > 0;) {
      output->append(buffer, n);
    }
    if (in != nullptr) std::fclose(in);
  }
  unlink(path);
  return outcome.exit_code;
}

}  // namespace dtbench
