// ShimTopology's out-of-line members and the choice of a communicator's topology.

#include "topology.hpp"
#include "topology_choice.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <stdexcept>
#include <vector>

namespace collectives::pmpi {

namespace {

template <class T>
std::string extents_text(const T& t)
{
  std::string s;
  for (std::size_t i = 0; i < t.ndims(); ++i) {
    if (i > 0) s += 'x';
    s += std::to_string(t.extent(i));
  }
  return s;
}

} // namespace

std::string ShimTopology::describe() const
{
  return std::visit(
    [](const auto& t) -> std::string {
      using T = std::remove_cvref_t<decltype(t)>;
      if constexpr (std::is_same_v<T, FullyConnected<>>) return "fully connected " + std::to_string(t.size());
      else if constexpr (std::is_same_v<T, Ring<>>) return "ring " + std::to_string(t.size());
      else if constexpr (std::is_same_v<T, Mesh<>>) return "mesh " + extents_text(t);
      else if constexpr (std::is_same_v<T, Torus3>) return "torus " + extents_text(t);
      else if constexpr (std::is_same_v<T, Hypercube<>>) return "hypercube " + std::to_string(t.ndims());
      else {
        std::string s = "grid " + extents_text(t) + " (";
        for (std::size_t i = 0; i < t.ndims(); ++i) s += std::string(i > 0 ? " x " : "") + (t.periodic(i) ? "ring" : "line");
        return s + ")";
      }
    },
    v_);
}

// ---------------------------------------------------------------------------------------

namespace {

std::vector<std::size_t> parse_extents(std::string_view text, std::string_view whole)
{
  std::vector<std::size_t> out;
  while (true) {
    const std::size_t x = text.find('x');
    const std::string_view part = text.substr(0, x);
    std::size_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc{} || end != part.data() + part.size() || v == 0)
      throw std::invalid_argument("COLLECTIVES_TOPOLOGY=" + std::string(whole) +
                                  ": extents must be positive integers separated by 'x', e.g. mesh:4x4");
    out.push_back(v);
    if (x == std::string_view::npos) break;
    text.remove_prefix(x + 1);
  }
  if (out.size() > max_grid_dims)
    throw std::invalid_argument("COLLECTIVES_TOPOLOGY=" + std::string(whole) + ": at most " +
                                std::to_string(max_grid_dims) + " extents");
  return out;
}

} // namespace

TopologySpec parse_topology_spec(std::string_view text)
{
  TopologySpec spec;
  if (text.empty()) return spec;
  const std::size_t colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  if (kind == "fully_connected" || kind == "full") spec.kind = TopologySpec::Kind::fully_connected;
  else if (kind == "ring") spec.kind = TopologySpec::Kind::ring;
  else if (kind == "mesh") spec.kind = TopologySpec::Kind::mesh;
  else if (kind == "torus") spec.kind = TopologySpec::Kind::torus;
  else if (kind == "hypercube") spec.kind = TopologySpec::Kind::hypercube;
  else if (kind == "grid") spec.kind = TopologySpec::Kind::grid;
  else
    throw std::invalid_argument("COLLECTIVES_TOPOLOGY=" + std::string(text) +
                                ": unknown topology; valid: fully_connected, ring, mesh[:RxC], torus[:AxBxC...], "
                                "hypercube[:D], grid[:AxB...] (grid: no wraparound links)");
  if (colon == std::string_view::npos) return spec;
  const std::string_view args = text.substr(colon + 1);
  if (spec.kind == TopologySpec::Kind::fully_connected || spec.kind == TopologySpec::Kind::ring)
    throw std::invalid_argument("COLLECTIVES_TOPOLOGY=" + std::string(text) + ": " + std::string(kind) +
                                " takes no extents (it has as many nodes as the communicator)");
  if (spec.kind == TopologySpec::Kind::hypercube) {
    const auto e = parse_extents(args, text);
    if (e.size() != 1 || e[0] > max_hypercube_dims)
      throw std::invalid_argument("COLLECTIVES_TOPOLOGY=" + std::string(text) +
                                  ": hypercube:D takes one dimension D <= 63");
    spec.extents = {std::size_t{1} << e[0]};
    return spec;
  }
  spec.extents = parse_extents(args, text);
  if (spec.kind == TopologySpec::Kind::mesh && spec.extents.size() != 2)
    throw std::invalid_argument("COLLECTIVES_TOPOLOGY=" + std::string(text) + ": mesh takes two extents, RxC");
  return spec;
}

namespace {

// The topology of `extents` (product p) with the given periods; dimensions of extent 1
// are dropped and those of extent 2 are rings (a line of two has the same links).
ShimTopology product_of(std::vector<std::size_t> extents, std::vector<bool> periodic)
{
  std::vector<std::size_t> e;
  std::vector<bool> per;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    if (extents[i] == 1) continue;
    e.push_back(extents[i]);
    per.push_back(periodic[i] || extents[i] == 2);
  }
  if (e.empty()) return ShimTopology(Ring<>{std::size_t{1}});
  bool all_periodic = true;
  for (bool b : per) all_periodic = all_periodic && b;
  if (all_periodic && e.size() == 1) return ShimTopology(Ring<>{e[0]});
  if (all_periodic && e.size() == 2) return ShimTopology(Mesh<>{e[0], e[1]});
  if (all_periodic && e.size() == 3) return ShimTopology(ShimTopology::Torus3{e[0], e[1], e[2]});
  bool flags[max_grid_dims] = {}; // std::vector<bool> is not contiguous
  for (std::size_t i = 0; i < per.size(); ++i) flags[i] = per[i];
  return ShimTopology(Grid(std::span<const std::size_t>(e), std::span<const bool>(flags, per.size())));
}

std::size_t product(const std::vector<std::size_t>& e)
{
  std::size_t p = 1;
  for (std::size_t x : e) p *= x;
  return p;
}

} // namespace

std::vector<std::size_t> balanced_extents(std::size_t p, std::size_t ndims)
{
  // As MPI_Dims_create: the prime factors, largest first, each to the smallest extent so
  // far; extents in non-increasing order.
  std::vector<std::size_t> factors;
  for (std::size_t f = 2, q = p; q > 1;) {
    if (f * f > q) {
      factors.push_back(q);
      break;
    }
    if (q % f == 0) {
      factors.push_back(f);
      q /= f;
    } else {
      ++f;
    }
  }
  std::vector<std::size_t> e(ndims, 1);
  for (std::size_t i = factors.size(); i-- > 0;) *std::min_element(e.begin(), e.end()) *= factors[i];
  std::sort(e.begin(), e.end(), std::greater<>{});
  return e;
}

TopologyChoice choose_topology(std::size_t p, const CartesianInfo* cart, const TopologySpec& spec)
{
  using K = TopologySpec::Kind;
  if (cart != nullptr) {
    std::size_t n_used = 0;
    for (std::size_t x : cart->extents)
      if (x > 1) ++n_used;
    if (n_used <= max_grid_dims && product(cart->extents) == p)
      return {product_of(cart->extents, cart->periodic), "Cartesian communicator"};
    // More non-trivial dimensions than a Grid holds: fall through to the environment.
  }
  const bool pow2 = p != 0 && (p & (p - 1)) == 0;
  switch (spec.kind) {
  case K::none: break;
  case K::fully_connected: return {ShimTopology(FullyConnected<>{p}), "COLLECTIVES_TOPOLOGY"};
  case K::ring: return {ShimTopology(Ring<>{p}), "COLLECTIVES_TOPOLOGY"};
  case K::hypercube:
    if (pow2 && (spec.extents.empty() || spec.extents[0] == p))
      return {ShimTopology(Hypercube<>::of_size(p)), "COLLECTIVES_TOPOLOGY"};
    break;
  case K::mesh:
  case K::torus:
  case K::grid: {
    std::vector<std::size_t> e = spec.extents;
    if (e.empty()) e = balanced_extents(p, spec.kind == K::torus ? 3 : 2);
    if (product(e) != p) break;
    return {product_of(e, std::vector<bool>(e.size(), spec.kind != K::grid)), "COLLECTIVES_TOPOLOGY"};
  }
  }
  const char* why = spec.kind == K::none ? "default" : "default: COLLECTIVES_TOPOLOGY does not fit this size";
  return {ShimTopology(FullyConnected<>{p == 0 ? 1 : p}), why};
}

} // namespace collectives::pmpi
