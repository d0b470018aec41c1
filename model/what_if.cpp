#include "model/what_if.h"

#include "common/links.h"

namespace dtbench::model {

const std::vector<std::string>& what_if_methods() {
  static const std::vector<std::string> methods = [] {
    std::vector<std::string> names;
    for (const auto& m : sync_methods()) {
      if (m.in_what_if) names.push_back(m.name);
    }
    return names;
  }();
  return methods;
}

std::vector<double> ready_by_bytes(const std::vector<double>& tensor_bytes, double backward_s) {
  double total = 0;
  for (double b : tensor_bytes) total += b;
  std::vector<double> ready(tensor_bytes.size());
  double done = 0;
  for (size_t i = tensor_bytes.size(); i-- > 0;) {
    done += tensor_bytes[i];
    ready[i] = total > 0 ? backward_s * done / total : backward_s;
  }
  return ready;
}

Link tcp_link(double gbit, double latency_s) {
  return {latency_s, payload_bytes_per_s(gbit * 1e9)};
}

std::vector<ScalingPoint> what_if(const Scenario& s) {
  ComputeProfile compute = s.compute;
  compute.shapes = s.shapes;
  const Phases alone{s.compute.data_s, s.compute.forward_s, s.compute.backward_s, 0,
                     s.compute.optimizer_s};
  std::vector<ScalingPoint> points;
  for (const std::string& method : what_if_methods()) {
    const bool bucketed = method == "bucketed";
    const bool per_tensor = find_method(method).engine == Engine::per_tensor;
    for (double gbit : s.gbits) {
      const Link link = tcp_link(gbit, s.latency_s);
      for (int n : s.ranks) {
        // bucketed: DDP's plan from the cap (no measured plan exists for a cluster not run).
        // The lossy methods: bucketed's engine with their defaults (docs/compression.md).
        Method m;
        m.sync = bucketed ? "c10d_ddp" : method;
        m.ranks = n;
        m.options.mode = per_tensor ? SyncMode::blocking : SyncMode::overlap;
        m.options.bucket_mb = s.bucket_cap_bytes / kMiB;
        const double t = predict(compute, m, link).total_s();
        points.push_back({method, n, gbit, t, alone.total_s() / t});
      }
    }
  }
  return points;
}

}  // namespace dtbench::model
