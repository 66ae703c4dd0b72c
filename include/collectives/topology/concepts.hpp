#pragma once
// What the algorithms ask of a topology. A user's topology satisfies `topology` by giving
// its size and a routing function; `product_topology` adds the dimensions that the
// per-dimension algorithms (rings, meshes, tori, hypercubes) walk.

#include <collectives/topology/extents.hpp>
#include <collectives/topology/route.hpp>

#include <concepts>
#include <cstddef>

namespace collectives {

/// A network of size() nodes, ranks 0..size()-1, with deterministic routing:
/// next_hop(a, b) is the neighbour of a on the route to b (a != b), and distance(a, b)
/// the number of hops of that route.
template <class T>
concept topology = std::copyable<T> && requires(const T& t, std::size_t r) {
  { t.size() } -> std::convertible_to<std::size_t>;
  { t.next_hop(r, r) } -> std::convertible_to<std::size_t>;
  { t.distance(r, r) } -> std::convertible_to<std::size_t>;
};

/// A product of rings: ndims() dimensions of extent(i) nodes, with wraparound neighbours;
/// stride(i) is the rank distance of neighbours along i, route_dim(k) the k-th dimension
/// in routing order (fastest-varying first).
template <class T>
concept product_topology = topology<T> && requires(const T& t, std::size_t r) {
  { t.ndims() } -> std::convertible_to<std::size_t>;
  { t.extent(r) } -> std::convertible_to<std::size_t>;
  { t.coord(r, r) } -> std::convertible_to<std::size_t>;
  { t.shift_along(r, r, r) } -> std::convertible_to<std::size_t>;
  { t.stride(r) } -> std::convertible_to<std::size_t>;
  { t.route_dim(r) } -> std::convertible_to<std::size_t>;
};

/// Number of nodes of T known at compile time, or dynamic_extent.
template <class T>
inline constexpr std::size_t static_size_v = [] {
  if constexpr (requires { T::static_size; }) return std::size_t{T::static_size};
  else return dynamic_extent;
}();

/// Hop count of the route from a to b, by the topology's own distance.
template <topology T>
constexpr std::size_t hops(const T& t, std::size_t a, std::size_t b)
{
  return t.distance(a, b);
}

} // namespace collectives
