#pragma once
// The tools' shared topology vocabulary: --topology ring|mesh|torus|hypercube|full,
// --p and --dims (4x4, 2x3x4), turned into a topology value and a label.

#include <collectives/cost/fully_connected.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/topology.hpp>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace collectives::tools {

/// The kinds --topology accepts.
inline const std::vector<std::string> topology_kinds{"ring", "mesh", "torus", "hypercube", "full"};

/// Extents from "4x4", "2,3,4" or "2*3"; std::invalid_argument naming `tool` otherwise.
inline std::vector<std::size_t> parse_dims(const std::string& text, const std::string& tool)
{
  std::vector<std::size_t> out;
  std::string cur;
  for (char c : text + "x") {
    if (c == 'x' || c == 'X' || c == ',' || c == '*') {
      if (cur.empty()) throw std::invalid_argument(tool + ": --dims wants extents like 4x4 or 2,3,4");
      std::size_t used = 0;
      unsigned long v = 0;
      try {
        v = std::stoul(cur, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != cur.size() || v == 0) throw std::invalid_argument(tool + ": bad extent '" + cur + "' in --dims");
      out.push_back(v);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

/// Calls f(topology, label) with the topology the arguments describe: Ring<>, Mesh<>,
/// Torus<dyn, dyn, dyn>, Hypercube<> or FullyConnected<>. A mesh or torus takes --dims,
/// or a square p. Bad arguments throw std::invalid_argument naming `tool`, among them
/// --dims for another topology, and --p given (`p_given`) beside --dims of another size.
template <class F>
void with_topology(const std::string& kind, std::size_t p, bool p_given, const std::string& dims_text,
                   const std::string& tool, F&& f)
{
  const bool grid = kind == "mesh" || kind == "torus";
  detail::require(grid || dims_text.empty(), tool + ": --dims is for a mesh or torus, not a " + kind);
  if (kind == "ring") {
    f(Ring<>{p}, "ring of " + std::to_string(p));
  } else if (kind == "hypercube") {
    detail::require(p >= 1 && (p & (p - 1)) == 0, tool + ": a hypercube needs --p a power of two");
    f(Hypercube<>::of_size(p), "hypercube of " + std::to_string(p));
  } else if (kind == "full") {
    f(FullyConnected<>{p}, "fully connected network of " + std::to_string(p));
  } else if (grid) {
    std::vector<std::size_t> d = dims_text.empty() ? std::vector<std::size_t>{} : parse_dims(dims_text, tool);
    if (!d.empty() && p_given) {
      std::size_t n = 1;
      for (std::size_t e : d) n *= e;
      detail::require(n == p, tool + ": --p " + std::to_string(p) + " and --dims " + dims_text + " (" +
                                  std::to_string(n) + " nodes) disagree; give one of them");
    }
    if (d.empty()) { // a square of p nodes
      const auto side = static_cast<std::size_t>(std::lround(std::sqrt(static_cast<double>(p))));
      detail::require(side * side == p, tool + ": give --dims, or a square --p, for a mesh or torus");
      d = {side, side};
    }
    std::string label = kind + " ";
    for (std::size_t i = 0; i < d.size(); ++i) label += (i ? "x" : "") + std::to_string(d[i]);
    if (d.size() == 1) f(Ring<>{d[0]}, label);
    else if (d.size() == 2) f(Mesh<>{d[0], d[1]}, label);
    else if (d.size() == 3) f(Torus<dynamic_extent, dynamic_extent, dynamic_extent>{d[0], d[1], d[2]}, label);
    else throw std::invalid_argument(tool + ": at most 3 dimensions");
  } else {
    throw std::invalid_argument(tool + ": unknown --topology '" + kind + "'");
  }
}

} // namespace collectives::tools
