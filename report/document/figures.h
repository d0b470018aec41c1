#pragma once
// The report's figures: one registry row per question, each building its table (and the
// sentences that state what the table shows) from the results of one system. Every number in
// a sentence is computed from the table; nothing is typed in.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "report/read/results.h"
#include "report/read/select.h"
#include "report/read/table.h"

namespace dtbench {

struct FigureData {
  Table table;                                       // printed under the figure; <id>.csv
  std::vector<std::pair<std::string, Table>> extra;  // more CSVs for the plot: <id>_<name>.csv
  std::vector<std::string> sentences;
  std::string caption;   // what is plotted, with the model and configuration
  std::string series;    // space-separated series names the gnuplot script loops over
  std::string backends;  // space-separated backends present (collectives)
  // More gnuplot string variables (name -> value) for labels computed from the data.
  std::map<std::string, std::string> labels;
};

struct FigureSpec {
  std::string id;        // report/figures/<id>.gp, report/build/data/<id>.csv
  std::string title;     // section heading
  std::string question;  // what the section answers
  std::string matrices;  // which matrices measure it, for the "not measured" line
  // Empty table: not measured in these results. all_systems is for the comparison figure.
  std::function<FigureData(const SystemResults&, const std::vector<SystemResults>&)> build;
};

const std::vector<FigureSpec>& figure_registry();

}  // namespace dtbench
