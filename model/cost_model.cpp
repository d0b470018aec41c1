#include "model/cost_model.h"

namespace dtbench::model {

double ring_allreduce_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return 2.0 * (n - 1) * link.time(bytes / n);
}

double gather_scatter_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return 2.0 * link.time((n - 1) * bytes);
}

double chain_reduce_broadcast_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return 2.0 * (n - 1) * link.time(bytes);
}

double ring_allgather_s(int n, double bytes, const Link& link) {
  if (n <= 1) return 0;
  return (n - 1) * link.time(bytes);
}

double hierarchical_allreduce_s(int hosts, int per_host, double bytes, const Link& inside,
                                const Link& between) {
  return chain_reduce_broadcast_s(per_host, bytes, inside) +
         ring_allreduce_s(hosts, bytes, between);
}

}  // namespace dtbench::model
