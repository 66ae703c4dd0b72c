#pragma once
// The facts every product of rings shares (torus, mesh, ring, hypercube), written once
// from three things a derived topology supplies: ndims(), extent(i) and stride(i) (the
// rank distance between neighbours along dimension i), plus route_dim(k), the k-th
// dimension in routing order.

#include <collectives/detail/require.hpp>
#include <collectives/topology/extents.hpp>
#include <collectives/topology/route.hpp>

#include <cstddef>

namespace collectives {

/// Which way along a dimension: plus is coordinate + 1 (mod extent), minus is - 1.
enum class Direction : int { plus = 1, minus = -1 };

namespace detail {

template <class Derived>
class ProductTopology {
public:
  /// Number of nodes.
  constexpr std::size_t size() const
  {
    std::size_t p = 1;
    for (std::size_t i = 0; i < self().ndims(); ++i) p *= self().extent(i);
    return p;
  }

  /// Coordinate of `rank` along dimension `dim`.
  constexpr std::size_t coord(std::size_t rank, std::size_t dim) const
  {
    return (rank / self().stride(dim)) % self().extent(dim);
  }

  /// The neighbour of `rank` one step along `dim` in direction `dir` (wrapping around).
  /// On a hypercube this is rank XOR 2^dim in either direction. A rank or dimension the
  /// topology does not have: std::invalid_argument (a compile error when constant).
  constexpr std::size_t neighbor(std::size_t rank, std::size_t dim, Direction dir = Direction::plus) const
  {
    detail::require_node(rank, size(), "neighbor");
    detail::require_dim(dim, self().ndims(), "neighbor");
    return shift_along(rank, dim, dir == Direction::plus ? 1 : self().extent(dim) - 1);
  }

  /// `rank` moved by `k` (taken mod extent) along `dim`, wrapping around.
  constexpr std::size_t shift_along(std::size_t rank, std::size_t dim, std::size_t k) const
  {
    const std::size_t z = self().extent(dim);
    const std::size_t c = coord(rank, dim);
    const std::size_t c2 = (c + k % z) % z;
    return rank - c * self().stride(dim) + c2 * self().stride(dim);
  }

  /// Hop distance: the shorter way round along each dimension, summed.
  constexpr std::size_t distance(std::size_t a, std::size_t b) const
  {
    // (Written out, not through coord(): constant evaluation counts every call, and the
    // estimate asks for a distance per message.)
    std::size_t hops = 0;
    for (std::size_t i = 0; i < self().ndims(); ++i) {
      const std::size_t z = self().extent(i), s = self().stride(i);
      const std::size_t d = ((b / s) % z + z - (a / s) % z) % z;
      hops += d < z - d ? d : z - d;
    }
    return hops;
  }

  /// Largest hop distance: sum of floor(extent / 2).
  constexpr std::size_t diameter() const
  {
    std::size_t d = 0;
    for (std::size_t i = 0; i < self().ndims(); ++i) d += self().extent(i) / 2;
    return d;
  }

  /// The next node on the route from `from` to `to` (from != to): dimension-order routing
  /// (E-cube on a hypercube, XY on a mesh: the fastest-varying dimension first), the
  /// shorter way round each ring, and on a tie (extent even, half-way) the plus direction.
  constexpr std::size_t next_hop(std::size_t from, std::size_t to) const
  {
    for (std::size_t k = 0; k < self().ndims(); ++k) {
      const std::size_t dim = self().route_dim(k);
      const std::size_t z = self().extent(dim);
      const std::size_t ca = coord(from, dim);
      const std::size_t cb = coord(to, dim);
      if (ca == cb) continue;
      const std::size_t forward = (cb + z - ca) % z;
      return shift_along(from, dim, forward <= z - forward ? 1 : z - 1); // (a route's nodes are checked once)
    }
    return from;
  }

  /// The links a message from `from` to `to` crosses, in order.
  constexpr RouteView<Derived> route(std::size_t from, std::size_t to) const
  {
    return RouteView<Derived>(self(), from, to);
  }

  /// True when a -> b is a link of the network.
  constexpr bool is_link(std::size_t a, std::size_t b) const { return distance(a, b) == 1; }

  /// Number of directed links: a ring of z nodes has 2z of them, of 2 nodes 2, of 1 none.
  /// std::invalid_argument (a compile error when constant) when it does not fit in
  /// std::size_t (Hypercube<63>: 63 * 2^63).
  constexpr std::size_t num_links() const
  {
    std::size_t n = 0;
    const std::size_t p = size();
    for (std::size_t i = 0; i < self().ndims(); ++i) {
      const std::size_t z = self().extent(i);
      const std::size_t per_ring = z == 1 ? 0 : z == 2 ? 2 : z;
      // 2z links a ring of z > 2 (z itself fits: counted twice over p / z rings each).
      n = detail::add_links(n, p / z, per_ring);
      if (z > 2) n = detail::add_links(n, p / z, per_ring);
    }
    return n;
  }

  /// Links cut by the cheapest balanced cut across one dimension: cutting dimension i
  /// severs each of its p/z rings once (z == 2) or twice (z > 2); a dimension of even
  /// extent gives equal halves, and with none (p odd) the largest dimension is cut.
  constexpr std::size_t bisection_width() const
  {
    const std::size_t p = size();
    if (p == 1) return 0;
    std::size_t best = 0;
    std::size_t largest = 0;
    bool found = false;
    for (std::size_t i = 0; i < self().ndims(); ++i) {
      const std::size_t z = self().extent(i);
      if (z > self().extent(largest)) largest = i;
      if (z % 2 != 0) continue;
      const std::size_t cut = (p / z) * (z == 2 ? 1 : 2);
      if (!found || cut < best) best = cut;
      found = true;
    }
    return found ? best : (p / self().extent(largest)) * 2;
  }

  /// Checks that rank < size(); std::out_of_range otherwise (compile error when constant).
  constexpr void check_rank(std::size_t rank) const
  {
    if (rank >= size()) throw_rank_out_of_range(rank, size());
  }

private:
  constexpr const Derived& self() const { return static_cast<const Derived&>(*this); }

  [[noreturn]] static void throw_rank_out_of_range(std::size_t rank, std::size_t p)
  {
    throw std::out_of_range("collectives: rank " + to_text(rank) + " is out of range for a topology of " +
                            to_text(p) + " nodes");
  }
};

} // namespace detail
} // namespace collectives
