#pragma once
// Grid: a Cartesian grid whose every dimension is either a ring (periodic) or a line (not
// periodic), as MPI_Cart_create declares them. Torus, Mesh and Ring are all-periodic; a
// grid with a line in it has no wraparound link there, so a message from one end of the
// line to the other crosses every node between.
//
// Grid satisfies product_topology, so the per-dimension algorithms (dimensional trees,
// all-gathers, reduce-scatters, alltoalls) run on it: they treat each dimension as a
// logical ring (coord, shift_along and stride wrap around, as on a torus), which is
// correct on any transport, while the routes (next_hop, distance) use only the links the
// grid has, so the cost model charges a wraparound message of a line its
// extent - 1 hops and selection prefers algorithms that stay on the links.
//
// Extents and periods are run-time values only: a grid describes what a communicator was
// given at run time (the MPI shim builds one from MPI_Cart_get).

#include <collectives/detail/require.hpp>
#include <collectives/topology/extents.hpp>
#include <collectives/topology/route.hpp>

#include <array>
#include <cstddef>
#include <initializer_list>
#include <span>

namespace collectives {

/// The most dimensions a Grid holds (a grid of 17 dimensions of extent >= 2 has at least
/// 131072 nodes; drop dimensions of extent 1 first).
inline constexpr std::size_t max_grid_dims = 16;

/// An N-D grid, 1 <= N <= max_grid_dims, each dimension periodic (a ring) or not (a line).
/// Ranks are row-major as on Torus (the last dimension varies fastest) and routing is
/// dimension order, last dimension first: along a ring the shorter way round (plus on a
/// tie), along a line straight towards the target.
class Grid {
public:
  /// A grid of the given extents (each >= 1) and periods, one per dimension.
  /// Throws std::invalid_argument for no dimension, more than max_grid_dims, an extent of
  /// 0, different numbers of extents and periods, or a size that does not fit std::size_t
  /// (a compile error in constant evaluation).
  constexpr Grid(std::span<const std::size_t> extents, std::span<const bool> periodic)
  {
    detail::require(!extents.empty() && extents.size() <= max_grid_dims,
                    "collectives::Grid: needs 1 to max_grid_dims (16) dimensions");
    detail::require(periodic.size() == extents.size(),
                    "collectives::Grid: needs one periodic flag per dimension");
    n_ = extents.size();
    std::size_t p = 1;
    for (std::size_t i = 0; i < n_; ++i) {
      detail::require(extents[i] >= 1, "collectives::Grid: every extent must be at least 1");
      extent_[i] = extents[i];
      periodic_[i] = periodic[i];
      p = detail::saturating_mul(p, extents[i]);
      detail::require(p < dynamic_extent, "collectives::Grid: the number of nodes does not fit in std::size_t");
    }
    size_ = p;
    std::size_t s = 1;
    for (std::size_t i = n_; i-- > 0;) {
      stride_[i] = s;
      s *= extent_[i];
    }
  }

  /// Grid({4, 3}, {true, false}): 4 rows on rings, 3 columns on lines.
  constexpr Grid(std::initializer_list<std::size_t> extents, std::initializer_list<bool> periodic)
    : Grid(std::span<const std::size_t>(extents.begin(), extents.size()),
           std::span<const bool>(periodic.begin(), periodic.size()))
  {
  }

  constexpr std::size_t ndims() const noexcept { return n_; }
  constexpr std::size_t extent(std::size_t i) const { return extent_[i]; }
  /// True when dimension i wraps around (has the link from its last node to its first).
  constexpr bool periodic(std::size_t i) const { return periodic_[i]; }
  constexpr std::size_t size() const noexcept { return size_; }
  /// Rank distance between neighbours along dimension i (row-major).
  constexpr std::size_t stride(std::size_t i) const { return stride_[i]; }
  /// Dimension routed k-th: the last (fastest-varying) first, as on Torus.
  constexpr std::size_t route_dim(std::size_t k) const { return n_ - 1 - k; }

  /// Coordinate of `rank` along dimension `dim`.
  constexpr std::size_t coord(std::size_t rank, std::size_t dim) const { return (rank / stride_[dim]) % extent_[dim]; }

  /// `rank` moved by `k` (mod extent) along `dim`: the logical ring of the dimension
  /// algorithms, wrapping around on lines too (routes do not; see the top of this file).
  constexpr std::size_t shift_along(std::size_t rank, std::size_t dim, std::size_t k) const
  {
    const std::size_t z = extent_[dim];
    const std::size_t c = coord(rank, dim);
    return rank - c * stride_[dim] + ((c + k % z) % z) * stride_[dim];
  }

  /// Hops of the route from a to b: per dimension the shorter way round a ring, the
  /// difference of coordinates along a line.
  constexpr std::size_t distance(std::size_t a, std::size_t b) const
  {
    std::size_t hops = 0;
    for (std::size_t i = 0; i < n_; ++i) hops += dim_distance(i, coord(a, i), coord(b, i));
    return hops;
  }

  /// The next node on the route from `from` to `to` (itself when they are equal).
  constexpr std::size_t next_hop(std::size_t from, std::size_t to) const
  {
    for (std::size_t k = 0; k < n_; ++k) {
      const std::size_t dim = route_dim(k);
      const std::size_t ca = coord(from, dim), cb = coord(to, dim);
      if (ca == cb) continue;
      return step(from, dim, plus_way(dim, ca, cb));
    }
    return from;
  }

  /// The links a message from `from` to `to` crosses, in order.
  constexpr RouteView<Grid> route(std::size_t from, std::size_t to) const { return RouteView<Grid>(*this, from, to); }

  /// True when a -> b is a link of the grid.
  constexpr bool is_link(std::size_t a, std::size_t b) const { return a != b && distance(a, b) == 1; }

  /// Number of directed links: a ring of z > 2 nodes has 2z, of 2 nodes 2, a line of z
  /// nodes 2(z - 1).
  constexpr std::size_t num_links() const
  {
    std::size_t n = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      const std::size_t z = extent_[i];
      const std::size_t half = z == 1 ? 0 : (z == 2 || !periodic_[i]) ? z - 1 : z; // each way
      n = detail::add_links(detail::add_links(n, size_ / z, half), size_ / z, half);
    }
    return n;
  }

  /// Largest hop distance.
  constexpr std::size_t diameter() const
  {
    std::size_t d = 0;
    for (std::size_t i = 0; i < n_; ++i) d += periodic_[i] ? extent_[i] / 2 : extent_[i] - 1;
    return d;
  }

  /// Coordinates of `rank` (the first ndims() entries); std::invalid_argument for a rank
  /// it does not have.
  constexpr std::array<std::size_t, max_grid_dims> coords(std::size_t rank) const
  {
    detail::require_node(rank, size_, "Grid::coords");
    std::array<std::size_t, max_grid_dims> c{};
    for (std::size_t i = 0; i < n_; ++i) c[i] = coord(rank, i);
    return c;
  }

  /// Rank of the node at coordinates c (each c[i] < extent(i)); std::invalid_argument otherwise.
  constexpr std::size_t rank_of(std::span<const std::size_t> c) const
  {
    detail::require(c.size() == n_, "collectives::Grid::rank_of: needs one coordinate per dimension");
    std::size_t r = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      detail::require(c[i] < extent_[i], "collectives::Grid::rank_of: coordinate out of range");
      r = r * extent_[i] + c[i];
    }
    return r;
  }

  friend constexpr bool operator==(const Grid& a, const Grid& b)
  {
    if (a.n_ != b.n_) return false;
    for (std::size_t i = 0; i < a.n_; ++i)
      if (a.extent_[i] != b.extent_[i] || a.periodic_[i] != b.periodic_[i]) return false;
    return true;
  }

private:
  constexpr std::size_t dim_distance(std::size_t dim, std::size_t ca, std::size_t cb) const
  {
    const std::size_t d = ca < cb ? cb - ca : ca - cb;
    if (!periodic_[dim]) return d;
    const std::size_t z = extent_[dim];
    return d < z - d ? d : z - d;
  }

  // Whether the route from coordinate ca to cb (different) along dim goes up.
  constexpr bool plus_way(std::size_t dim, std::size_t ca, std::size_t cb) const
  {
    if (!periodic_[dim]) return cb > ca;
    const std::size_t z = extent_[dim];
    const std::size_t forward = (cb + z - ca) % z;
    return forward <= z - forward;
  }

  // The neighbour of `rank` one link along dim (up or down, wrapping only on rings; a
  // route never asks a line to wrap).
  constexpr std::size_t step(std::size_t rank, std::size_t dim, bool up) const
  {
    return shift_along(rank, dim, up ? 1 : extent_[dim] - 1);
  }

  std::size_t n_ = 0;
  std::size_t size_ = 1;
  std::array<std::size_t, max_grid_dims> extent_{};
  std::array<std::size_t, max_grid_dims> stride_{};
  std::array<bool, max_grid_dims> periodic_{};
};

} // namespace collectives
