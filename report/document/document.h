#pragma once
// `dtbench report`: results directories -> report/build/data/*.csv -> gnuplot (one script per
// figure in report/figures/) -> report.md from report/document/template.md -> pandoc -> the PDF.
#include <string>
#include <vector>

namespace dtbench {

struct ReportOptions {
  std::vector<std::string> result_dirs;
  std::string output = "report/build/group.pdf";  // report.md, data/ and figures/ go beside it
  std::string report_dir;                         // the repository's report/ (template, scripts)
  bool each_directory = false;  // every directory a system of its own (load_results)
};

// Returns the number of figures drawn. UserError when there are no results; RunError when
// gnuplot or pandoc fails (with its first line of output).
int build_report(const ReportOptions& options);

}  // namespace dtbench
