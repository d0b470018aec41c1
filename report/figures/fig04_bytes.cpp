// Figure 4, "Bytes moved per node": its table, caption and sentences, drawn by fig04_bytes.gp.
#include <fmt/format.h>

#include <algorithm>

#include "report/figures/common.h"
#include "stats/stats.h"

namespace dtbench::report {

FigureData bytes_moved(const SystemResults& s, const std::vector<SystemResults>&) {
  FigureData f;
  std::string model;
  auto runs = runs_of(s, "sync_methods", &model);
  f.table.columns = {"method",      "rank",           "payload_sent_MB", "payload_received_MB",
                     "nic_sent_MB", "nic_received_MB"};
  Table plot;
  plot.columns = {"method", "index", "rank", "payload_MB"};
  std::pair<std::string, double> max_ratio{"", 0};
  int index = 0;
  for (const TrainRun* r : runs) {
    double iterations = static_cast<double>(r->record.iterations.total_s.size());
    double lowest = 1e300, highest = 0;
    for (const auto& rank : r->record.ranks) {
      double nic_sent = 0, nic_received = 0;
      for (const auto& [dev, c] : rank.nic.items()) {
        nic_sent += c.value("sent_bytes", 0.0);
        nic_received += c.value("received_bytes", 0.0);
      }
      double sent = mb(rank.payload_sent_bytes / iterations);
      double received = mb(rank.payload_received_bytes / iterations);
      f.table.rows.push_back({method_label(*r), rank.rank, sent, received,
                              mb(nic_sent / iterations), mb(nic_received / iterations)});
      plot.rows.push_back({method_label(*r), index, rank.rank, sent + received});
      lowest = std::min(lowest, sent + received);
      highest = std::max(highest, sent + received);
    }
    if (lowest > 0 && highest / lowest > max_ratio.second)
      max_ratio = {method_label(*r), highest / lowest};
    ++index;
  }
  f.extra.push_back({"plot", plot});
  if (runs.empty()) return f;
  f.caption = fmt::format(
      "Gradient payload sent + received per rank per iteration (what the "
      "Communicator handed over); NIC counters in the table; {}",
      model_caption(model, *runs[0]));
  f.sentences.push_back(fmt::format(
      "The most uneven method was {}: its busiest rank moved {}x the payload of its least busy "
      "one.",
      max_ratio.first, short_number(max_ratio.second)));
  f.sentences.push_back(
      "NIC counters are those of the interface each rank sees: on one host every rank shares "
      "loopback, so they count everyone's traffic; on the emulated cluster they are per rank.");
  return f;
}

}  // namespace dtbench::report
