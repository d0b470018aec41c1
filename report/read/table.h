#pragma once
// The numbers behind one figure: written as tidy CSV (report/build/data/<figure>.csv, read by
// its gnuplot script) and as the Markdown table printed under the figure.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace dtbench {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::json>> rows;  // each cell a string or a number

  bool empty() const { return rows.empty(); }
  std::string csv() const;  // full precision
  // Numbers with 4 significant digits; at most max_rows rows (then "... N more").
  std::string markdown(size_t max_rows = 40) const;
  // The indices of the rows holding the smallest and the largest number of column (the first
  // of equal ones), NaN skipped; {rows.size(), rows.size()} when there is no number.
  std::pair<size_t, size_t> extremes(const std::string& column) const;

  // Cells by column name, so that a builder's sentences follow its columns whatever their order.
  // A name that is not a column is a bug in the builder (std::logic_error).
  size_t column(const std::string& name) const;
  double number(size_t row, const std::string& name) const;
  std::string text(size_t row, const std::string& name) const;
};

// "1.235", "0.0123", "1.235e+07": 4 significant digits.
std::string short_number(double value);

}  // namespace dtbench
