#pragma once
// The report's first page: the answer a user came with, put together from what the sections
// and the diagnosis further on computed (every number there, with the section and the CSV it
// comes from): the fastest method here and by how much, or that the top ones are tied; where
// the iteration goes; the bucket size; more ranks; the model's accuracy; Python DDP against
// the best; the diagnosis's straggler, slow host and hidden communication. What these results
// do not measure is said, with the matrix that measures it.
#include <map>
#include <string>

#include "report/document/figures.h"
#include "report/predict/diagnosis.h"

namespace dtbench {

// A section as the report numbered and built it.
struct BuiltSection {
  int number = 0;
  const FigureSpec* spec = nullptr;
  FigureData data;
};

// Markdown for the first page; sections by figure id (those not built: not measured). `s` is
// the system the sections show: the cost model's what-if at 16, 64 and 1,024 ranks and at 0.1,
// 1 and 10 Gbit/s starts from the compute measured there, and its points go to `what_if`
// (answer_what_if.csv beside the sections' CSVs; empty when nothing was measured to start from).
// A study's verify cells, predicted and measured, go to `study` (answer_study.csv; empty when
// the results are no study's).
std::string answer_page(const std::map<std::string, BuiltSection>& sections,
                        const Diagnosis& diagnosis, const SystemResults& s, Table& what_if,
                        Table& study);

}  // namespace dtbench
