#include "report/predict/rested_sweeps.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "report/predict/model_inputs.h"
#include "stats/stats.h"

namespace dtbench {
namespace {

using Where = std::pair<std::string, int>;             // backend, ranks
using Size = std::tuple<Where, std::string, int64_t>;  // where, op, bytes
Size size_of(const CollectiveRun& c) {
  return {{c.backend, c.ranks}, c.op, c.bytes};
}

}  // namespace

std::vector<RestedSweeps> rested_sweeps(const SystemResults& s) {
  std::map<Size, Mean> between, chained, rested;
  for (const CollectiveRun& c : s.collectives) {
    if (c.model_case.empty()) continue;
    between[size_of(c)].add(c.time_s);
    if (c.chained_s > 0) chained[size_of(c)].add(c.chained_s);
  }
  std::map<Where, RestedSweeps> out;
  std::map<Where, std::map<std::string, RestedSize>> largest;  // by op
  for (const CollectiveRun& c : s.rested) {
    const Size key = size_of(c);
    if (c.model_case.empty() || between.count(key) == 0) continue;
    rested[key].add(c.time_s);
    const Where& where = std::get<0>(key);
    RestedSweeps& r = out[where];
    r.backend = where.first, r.ranks = where.second, r.rest_s = std::max(r.rest_s, c.rest_s);
    RestedSize& size = largest[where][c.op];
    if (c.bytes >= size.bytes) size = {c.op, c.bytes, c.model_case, 0, 0, -1};
  }
  std::vector<RestedSweeps> list;
  for (auto& [where, r] : out) {
    for (auto& [op, size] : largest[where]) {
      const Size key{where, op, size.bytes};
      size.rested_s = rested[key].value();
      size.between_s = between[key].value();
      size.chained_s = chained[key].value();
      r.sizes.push_back(size);
    }
    list.push_back(r);
  }
  return list;
}

double RestSaving::saved_s(double bytes) const {
  if (!found()) return 0;
  return std::max(0.0, saving.time(std::min(bytes, saving.bytes.back())));
}

RestSaving rest_saving(const SystemResults& s, const std::string& backend, int ranks) {
  std::map<int64_t, Mean> saved;
  RestSaving out;
  for (const CollectiveRun& c : s.rested) {
    if (c.op != "allreduce" || c.backend != backend || c.ranks != ranks || !(c.chained_s > 0)) {
      continue;
    }
    saved[c.bytes].add(c.chained_s - c.time_s);
    out.rest_s = std::max(out.rest_s, c.rest_s);
  }
  for (const auto& [bytes, mean] : saved) {
    out.saving.bytes.push_back(static_cast<double>(bytes));
    out.saving.seconds.push_back(mean.value());
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

std::vector<std::string> rest_pricing_text(const SystemResults& s) {
  std::set<int> gloo, chained, mpi;
  std::set<std::string> mpi_ops;
  bool mpi_rings = false;  // rested, but priced between barriers
  for (const CollectiveRun& c : s.rested) {
    mpi_rings = mpi_rings || (c.backend == "mpi" && !library_collective(c.op));
    if (!priced_after_rest(s, c)) continue;
    if (c.backend == "gloo") {
      gloo.insert(c.ranks);
    } else {
      mpi.insert(c.ranks);
      mpi_ops.insert(c.op);
    }
  }
  for (const CollectiveRun& c : s.collectives) {
    if (c.backend == "gloo" && c.chained_s > 0 && gloo.count(c.ranks) == 0) {
      chained.insert(c.ranks);
    }
  }
  const double burst = bucket_between_hosts(s);
  const std::string up_to =
      burst > 0 ? fmt::format(" up to the links' token bucket of {:.0f} KB", burst / 1e3) : "";
  std::vector<std::string> lines;
  if (!gloo.empty()) {
    std::string text = fmt::format(
        "Gloo's operations on {} ranks (a core each) as swept after a rest", fmt::join(gloo, ", "));
    if (burst > 0) text += up_to + " (chained beyond)";
    if (!chained.empty()) text += fmt::format("; on {} ranks chained", fmt::join(chained, ", "));
    lines.push_back(text);
  }
  if (!mpi.empty()) {
    lines.push_back(
        fmt::format("Open MPI's own collectives ({}) on {} ranks as swept after a rest{}{}{}",
                    fmt::join(mpi_ops, ", "), fmt::join(mpi, ", "), up_to,
                    burst > 0 ? " (between barriers beyond)" : "",
                    mpi_rings ? "; its hand-written rings between barriers" : ""));
  }
  return lines;
}

}  // namespace dtbench
