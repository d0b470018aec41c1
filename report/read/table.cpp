#include "report/read/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dtbench {
namespace {

std::string cell_text(const nlohmann::json& cell, bool full) {
  if (cell.is_string()) return cell.get<std::string>();
  if (cell.is_number_integer()) return std::to_string(cell.get<int64_t>());
  if (cell.is_number())
    return full ? fmt::format("{}", cell.get<double>()) : short_number(cell.get<double>());
  if (cell.is_boolean()) return cell.get<bool>() ? "yes" : "no";
  return "";
}

}  // namespace

std::string short_number(double value) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return "0";
  double magnitude = std::fabs(value);
  if (magnitude >= 1e6 || magnitude < 1e-3) return fmt::format("{:.3e}", value);
  return fmt::format("{:.4g}", value);
}

std::string Table::csv() const {
  std::string text = fmt::format("{}\n", fmt::join(columns, ","));
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const auto& c : row) {
      std::string t = cell_text(c, true);
      if (t.find_first_of(",\"") != std::string::npos) t = "\"" + t + "\"";
      cells.push_back(t);
    }
    text += fmt::format("{}\n", fmt::join(cells, ","));
  }
  return text;
}

size_t Table::column(const std::string& name) const {
  auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) throw std::logic_error("report table has no column " + name);
  return static_cast<size_t>(it - columns.begin());
}

double Table::number(size_t row, const std::string& name) const {
  return rows.at(row).at(column(name)).get<double>();
}

std::string Table::text(size_t row, const std::string& name) const {
  return rows.at(row).at(column(name)).get<std::string>();
}

std::pair<size_t, size_t> Table::extremes(const std::string& name) const {
  const size_t c = column(name);
  size_t low = rows.size(), high = rows.size();
  for (size_t r = 0; r < rows.size(); ++r) {
    double v = rows[r][c].get<double>();
    if (std::isnan(v)) continue;
    if (low == rows.size() || v < rows[low][c].get<double>()) low = r;
    if (high == rows.size() || v > rows[high][c].get<double>()) high = r;
  }
  return {low, high};
}

std::string Table::markdown(size_t max_rows) const {
  std::string text = fmt::format("| {} |\n|", fmt::join(columns, " | "));
  for (size_t i = 0; i < columns.size(); ++i) text += "---|";
  text += "\n";
  for (size_t r = 0; r < rows.size() && r < max_rows; ++r) {
    std::vector<std::string> cells;
    for (const auto& c : rows[r]) {
      std::string t = cell_text(c, false);
      for (size_t at = 0; (at = t.find_first_of("|_*", at)) != std::string::npos; at += 2) {
        t.insert(at, "\\");
      }
      cells.push_back(t);
    }
    text += fmt::format("| {} |\n", fmt::join(cells, " | "));
  }
  if (rows.size() > max_rows) {
    text += fmt::format("\nand {} more rows in the CSV file.\n", rows.size() - max_rows);
  }
  return text;
}

}  // namespace dtbench
