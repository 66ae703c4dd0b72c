#pragma once
// What the tests of the seeds' algorithms (issue 11) share: the algorithms under test, the
// seeds' cost models, the shapes the tests sweep.

#include <collectives/collectives.hpp>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace seeds_test {

using namespace collectives;

/// The algorithms issue 11 added, every collective's together.
inline constexpr auto added = boost::hana::make_tuple(
  broadcast_algorithm::ring_staggered, broadcast_algorithm::dimensional_ring,
  broadcast_algorithm::scatter_allgather_hypercube, reduce_algorithm::ring_staggered, reduce_algorithm::dimensional_ring,
  reduce_algorithm::reduce_scatter_gather_hypercube, scatter_algorithm::dimensional_ring,
  gather_algorithm::dimensional_ring);

/// True when A is one of `added`.
template <class A>
constexpr bool is_added()
{
  bool found = false;
  boost::hana::for_each(added, [&](auto a) { found = found || std::is_same_v<decltype(a), A>; });
  return found;
}

/// The examples of issue 11: t_s = 64, t_w = 0.5, one-port, store-and-forward or
/// cut-through; no t_h or t_r, as in the seeds.
inline constexpr CostModel seed_sf{.t_s = 64, .t_w = 0.5, .routing = Routing::store_and_forward, .ports = Ports::one};
inline constexpr CostModel seed_ct{.t_s = 64, .t_w = 0.5, .routing = Routing::cut_through, .ports = Ports::one};

/// Every root for small p, else the first, middle and last and two in between.
inline std::vector<std::size_t> roots_for(std::size_t p)
{
  std::vector<std::size_t> roots;
  if (p <= 16) {
    for (std::size_t r = 0; r < p; ++r) roots.push_back(r);
    return roots;
  }
  for (std::size_t r : {std::size_t{0}, std::size_t{1}, p / 3, p / 2 + 1, p - 1}) roots.push_back(r);
  return roots;
}

/// Extents of the meshes and tori the tests sweep: non-square, with extents 1 and 2
/// (rings of one and of two nodes), odd and even.
inline const std::vector<std::vector<std::size_t>>& torus_shapes()
{
  static const std::vector<std::vector<std::size_t>> shapes{
    {1, 1}, {1, 5}, {5, 1}, {2, 2}, {2, 3}, {3, 2}, {3, 4}, {4, 3}, {4, 4}, {5, 5}, {2, 7}, {6, 4},
    {2, 3, 4}, {3, 3, 3}, {1, 4, 2}, {4, 1, 3}, {2, 2, 2}, {5, 2, 1}, {2, 2, 2, 2}};
  return shapes;
}

/// Calls f(topology) for Mesh<>{r, c} or Torus<>{a, b, c} (or 4-D) with these extents.
template <class F>
void with_torus(const std::vector<std::size_t>& e, F f)
{
  if (e.size() == 2) f(Mesh<>{e[0], e[1]});
  else if (e.size() == 3) f(Torus<dynamic_extent, dynamic_extent, dynamic_extent>{e[0], e[1], e[2]});
  else f(Torus<dynamic_extent, dynamic_extent, dynamic_extent, dynamic_extent>{e[0], e[1], e[2], e[3]});
}

/// "2x3x4".
inline std::string shape_name(const std::vector<std::size_t>& e)
{
  std::string s;
  for (std::size_t x : e) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

} // namespace seeds_test
