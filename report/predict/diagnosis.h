#pragma once
// The report's "Diagnosis" of one system (one results directory, or the directories of one
// machine): what its measurements say about who and what held the training back, as a table
// and sentences computed from the data (nothing typed in):
//  - ranks: per training experiment, each rank's pace (rank_stats.h), as a table;
//  - stragglers: per traced run, the rank the others waited for (stragglers.h), and how well
//    the ranks' clocks were aligned (start_facts.h);
//  - links: what the start-up probe of each run found between the hosts (start_facts.h);
//  - overlap: per traced run, the communication hidden behind compute (overlap.h);
//  - link efficiency: the collectives' bus bandwidth against the stated rate (link_efficiency.h);
//  - the model: its errors and ranking against the best predictors' (predict.h).
#include <string>
#include <vector>

#include "report/read/results.h"
#include "report/read/table.h"

namespace dtbench {

struct Diagnosis {
  Table ranks;  // experiment, ranks, slowest rank and host, p50 range, spread, behind, wait
  std::vector<std::string> stragglers, links, overlap, efficiency, model;
};

Diagnosis diagnose(const SystemResults& s);

// Markdown: a paragraph per part (its lead-in in bold), the table after the first; a part with
// nothing measured says so, with the matrix or option that measures it.
std::string diagnosis_markdown(const Diagnosis& d);

}  // namespace dtbench
