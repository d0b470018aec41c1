#include "report/predict/rested_sweeps.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

namespace dtbench {
namespace {

struct Mean {
  double sum = 0;
  int count = 0;
  void add(double v) { sum += v, ++count; }
  double value() const { return count > 0 ? sum / count : -1; }
};

using SizeKey = std::tuple<std::string, int, std::string, int64_t>;  // backend, ranks, op, bytes

}  // namespace

std::vector<RestedSweeps> rested_sweeps(const SystemResults& s) {
  std::map<SizeKey, Mean> between, chained;
  for (const CollectiveRun& c : s.collectives) {
    if (c.model_case.empty()) continue;
    const SizeKey key{c.backend, c.ranks, c.op, c.bytes};
    between[key].add(c.time_s);
    if (c.chained_s > 0) chained[key].add(c.chained_s);
  }
  std::map<SizeKey, Mean> rested;
  std::map<SizeKey, std::string> cases;
  std::map<std::pair<std::string, int>, double> rests;
  for (const CollectiveRun& c : s.rested) {
    const SizeKey key{c.backend, c.ranks, c.op, c.bytes};
    if (c.model_case.empty() || between.count(key) == 0) continue;
    rested[key].add(c.time_s);
    cases[key] = c.model_case;
    double& rest = rests[{c.backend, c.ranks}];
    rest = std::max(rest, c.rest_s);
  }
  std::map<std::pair<std::string, int>, std::map<std::string, RestedSize>> largest;
  for (const auto& [key, mean] : rested) {
    const auto& [backend, ranks, op, bytes] = key;
    RestedSize& size = largest[{backend, ranks}][op];
    if (bytes <= size.bytes) continue;
    size = {op,
            bytes,
            cases[key],
            mean.value(),
            between[key].value(),
            chained.count(key) > 0 ? chained[key].value() : -1};
  }
  std::vector<RestedSweeps> out;
  for (const auto& [where, ops] : largest) {
    RestedSweeps r{where.first, where.second, rests[where], {}};
    for (const auto& [op, size] : ops) r.sizes.push_back(size);
    out.push_back(r);
  }
  return out;
}

std::string rested_sweeps_text(const RestedSweeps& r) {
  std::string text =
      fmt::format("after {:g} ms of rest, {} on {} ranks:", r.rest_s * 1e3, r.backend, r.ranks);
  const char* sep = " ";
  for (const RestedSize& z : r.sizes) {
    text += fmt::format("{}{} at {} B ({}) {:.2f} ms ({:.2f} between barriers", sep, z.op, z.bytes,
                        z.model_case, z.rested_s * 1e3, z.between_s * 1e3);
    if (z.chained_s > 0) text += fmt::format(", {:.2f} chained", z.chained_s * 1e3);
    text += ")";
    sep = "; ";
  }
  return text;
}

}  // namespace dtbench
