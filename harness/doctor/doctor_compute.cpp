// The doctor's judgment of the compute probe (doctor.h): the same compute on every host at once,
// under each launcher path. A launcher that gives its ranks more threads than the cores they share
// makes training many times slower (each parallel loop waits for a thread that is not running);
// so does a cpuset narrower than the host's.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "doctor/doctor.h"
#include "stats/stats.h"

namespace dtbench {
namespace {

constexpr double kFarSlower = 2.0;       // a host this many times the others' median
constexpr double kLaunchersApart = 1.5;  // a host this many times slower under one launcher

// Why a sample is slow, as far as its threads and cores tell, against a typical core count.
std::string likely_cause(const ComputeSample& s, int typical_cores) {
  const ThreadShare& t = s.threads;
  if (t.threads > 1 && t.threads * t.ranks_sharing > t.cores) {
    return fmt::format("threads: {} per rank x {} ranks on {} cores (cpuset {})", t.threads,
                       t.ranks_sharing, t.cores, t.cpuset);
  }
  if (t.cores < typical_cores) {
    return fmt::format("cpuset: {} cores ({}) where the others have {}", t.cores, t.cpuset,
                       typical_cores);
  }
  return "neither threads nor cpuset: another load there?";
}

// The hosts of one launcher's run far slower than the others' median.
void slow_hosts(const std::vector<std::string>& names, const std::string& launcher,
                const std::vector<ComputeSample>& samples, std::vector<Finding>* out) {
  for (size_t i = 0; i < samples.size() && samples.size() > 1; ++i) {
    std::vector<double> others;
    std::vector<double> cores;
    for (size_t k = 0; k < samples.size(); ++k) {
      if (k == i) continue;
      others.push_back(samples[k].seconds);
      cores.push_back(samples[k].threads.cores);
    }
    const double typical = percentile(others, 50);
    if (samples[i].seconds <= kFarSlower * typical) continue;
    out->push_back(
        {"WARN",
         fmt::format("compute: {} took {:.2f} s under {} against {:.2f} s on the others "
                     "({:.1f}x): likely {}",
                     names[i], samples[i].seconds, launcher, typical, samples[i].seconds / typical,
                     likely_cause(samples[i], static_cast<int>(percentile(cores, 50))))});
  }
}

}  // namespace

std::vector<Finding> judge_compute(
    const std::vector<std::string>& names,
    const std::vector<std::pair<std::string, std::vector<ComputeSample>>>& runs) {
  std::vector<Finding> out;
  if (runs.empty()) return out;
  for (const auto& [launcher, samples] : runs) slow_hosts(names, launcher, samples, &out);
  const auto& [used, first] = runs.front();
  for (size_t r = 1; r < runs.size(); ++r) {
    const auto& [other, second] = runs[r];
    std::vector<double> others;
    for (const auto& s : second) others.push_back(s.seconds);
    const double typical = percentile(others, 50);
    for (size_t i = 0; i < first.size() && i < second.size(); ++i) {
      const ComputeSample& a = first[i];
      const ComputeSample& b = second[i];
      // Slower than this host under the other launcher and than that launcher's typical host: a
      // host that ran alone under the other launcher (its peers not yet computing beside it) is
      // fast there, not slow here.
      if (a.seconds <= kLaunchersApart * b.seconds || a.seconds <= kLaunchersApart * typical) {
        continue;
      }
      const std::string cause =
          a.threads.threads != b.threads.threads
              ? fmt::format("{}'s ranks take {} threads, {}'s {} ({})", used, a.threads.threads,
                            other, b.threads.threads, a.threads.text())
          : a.threads.cpuset != b.threads.cpuset
              ? fmt::format("{}'s ranks run on cpuset {}, {}'s on {}", used, a.threads.cpuset,
                            other, b.threads.cpuset)
              : "the same threads and cpuset: " + likely_cause(a, b.threads.cores);
      out.push_back({"FAIL", fmt::format("compute: {} took {:.2f} s under {} against {:.2f} s "
                                         "under {} ({:.1f}x): {}",
                                         names[i], a.seconds, used, b.seconds, other,
                                         a.seconds / b.seconds, cause)});
    }
  }
  // Launchers apart fail; a slow host among alike launchers leaves the launchers' verdict.
  const bool apart =
      std::any_of(out.begin(), out.end(), [](const Finding& f) { return f.verdict == "FAIL"; });
  if (apart || (runs.size() == 1 && !out.empty())) return out;
  std::vector<std::string> launchers;
  double low = first.empty() ? 0 : first[0].seconds, high = low;
  for (const auto& [launcher, samples] : runs) {
    launchers.push_back(launcher);
    for (const auto& s : samples) {
      low = std::min(low, s.seconds);
      high = std::max(high, s.seconds);
    }
  }
  const std::string alike =
      runs.size() > 1
          ? fmt::format("{} alike on all {} hosts", fmt::join(launchers, " and "), names.size())
          : fmt::format("alike on all {} hosts under {}", names.size(), used);
  out.push_back({"PASS", fmt::format("compute: {} ({:.2f}-{:.2f} s): {}", alike, low, high,
                                     first.empty() ? "" : first[0].threads.text())});
  return out;
}

}  // namespace dtbench
