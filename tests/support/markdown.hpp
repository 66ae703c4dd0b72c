#pragma once
// Reading the docs' markdown tables of algorithms (README.md, docs/pmpi.md), for the tests
// that compare them with the registry's lists.

#include <cstddef>
#include <string>
#include <vector>

namespace collectives::testing {

/// The cells of a table row "| a | b | ... |" (each with its spaces).
inline std::vector<std::string> table_cells(const std::string& row)
{
  std::vector<std::string> cells;
  for (std::size_t at = 1, bar; (bar = row.find('|', at)) != std::string::npos; at = bar + 1)
    cells.push_back(row.substr(at, bar - at));
  return cells;
}

/// The backticked words of a cell outside parentheses, in order: the names it lists (a
/// note in parentheses may name other things).
inline std::vector<std::string> ticked_names(const std::string& cell)
{
  std::vector<std::string> out;
  int depth = 0;
  for (std::size_t i = 0; i < cell.size(); ++i) {
    if (cell[i] == '(') ++depth;
    if (cell[i] == ')') --depth;
    if (cell[i] != '`' || depth != 0) continue;
    const std::size_t end = cell.find('`', i + 1);
    if (end == std::string::npos) break;
    out.push_back(cell.substr(i + 1, end - i - 1));
    i = end;
  }
  return out;
}

} // namespace collectives::testing
