#pragma once
// Hypercube<D>: D rings of two nodes each. It shares every fact with Torus through
// ProductTopology; what differs is that the number of dimensions itself may be a run-time
// value, and that dimension i is bit i of the rank (neighbour = rank XOR 2^i).

#include <collectives/detail/bits.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/topology/extents.hpp>
#include <collectives/topology/product.hpp>

#include <array>
#include <concepts>
#include <cstddef>

namespace collectives {

/// Largest hypercube dimension: 2^63 nodes still fit in std::size_t.
inline constexpr std::size_t max_hypercube_dims = 63;

/// A D-dimensional hypercube of 2^D nodes; Hypercube<> takes D at run time.
/// Routing is E-cube: bits are corrected from the lowest dimension up.
template <std::size_t D = dynamic_extent>
class Hypercube : public detail::ProductTopology<Hypercube<D>> {
  static_assert(D == dynamic_extent || D <= max_hypercube_dims,
                "collectives::Hypercube<D>: D must be at most 63 (2^D nodes must fit in std::size_t)");

  template <std::size_t> friend class Hypercube;

public:
  /// Number of nodes when D is static, else dynamic_extent.
  static constexpr std::size_t static_size = D == dynamic_extent ? dynamic_extent : std::size_t{1} << D;
  /// Number of dimensions as given in the type.
  static constexpr std::size_t static_dims = D;
  static constexpr std::size_t static_extent(std::size_t) noexcept { return 2; }

  constexpr Hypercube() noexcept requires(D != dynamic_extent) = default;

private:
  // The zero-dimensional cube, the starting point of of_dims for a dynamic D.
  constexpr Hypercube() noexcept requires(D == dynamic_extent) = default;

public:

  /// Static -> dynamic is implicit; dynamic -> static is explicit and checked; between
  /// different static dimensions, explicit and a compile error.
  template <std::size_t E>
  constexpr explicit(D != dynamic_extent && D != E) Hypercube(const Hypercube<E>& other)
  {
    static_assert(D == dynamic_extent || E == dynamic_extent || D == E,
                  "collectives::Hypercube: converting between hypercubes of different static dimensions");
    if constexpr (D == dynamic_extent)
      dims_[0] = other.ndims();
    else
      detail::require(other.ndims() == D,
                      "collectives::Hypercube: converting to a static dimension that the run-time one does not match");
  }

  // Named constructors only: "Hypercube<>{3}" would read as 3 nodes to some and as 3
  // dimensions to others (Ring<>{n} and Mesh<>{r, c} take node counts).

  /// The hypercube of `dims` dimensions (2^dims nodes); dims <= 63, and equal to D when D
  /// is static. Throws std::invalid_argument otherwise (a compile error when constant).
  static constexpr Hypercube of_dims(std::size_t dims)
  {
    detail::require(dims <= max_hypercube_dims,
                    "collectives::Hypercube::of_dims: the number of dimensions must be between 0 and 63");
    if constexpr (D != dynamic_extent)
      detail::require(dims == D, "collectives::Hypercube::of_dims: the number of dimensions differs from the static one");
    Hypercube h;
    if constexpr (D == dynamic_extent) h.dims_[0] = dims;
    return h;
  }

  /// The hypercube of p nodes; p must be a power of two (std::invalid_argument otherwise,
  /// a compile error when constant).
  static constexpr Hypercube of_size(std::size_t p)
  {
    detail::require(detail::is_power_of_two(p), "collectives::Hypercube::of_size: p must be a power of two");
    return of_dims(detail::countr_zero(p));
  }

  constexpr std::size_t ndims() const noexcept
  {
    if constexpr (D == dynamic_extent) return dims_[0];
    else return D;
  }
  constexpr std::size_t size() const noexcept { return std::size_t{1} << ndims(); }
  static constexpr std::size_t extent(std::size_t) noexcept { return 2; }
  static constexpr std::size_t stride(std::size_t i) noexcept { return std::size_t{1} << i; }
  /// E-cube: lowest dimension first.
  static constexpr std::size_t route_dim(std::size_t k) noexcept { return k; }

  /// Neighbour along dimension i: rank XOR 2^i (the same in both directions). A rank or
  /// dimension it does not have: std::invalid_argument (a compile error when constant).
  constexpr std::size_t neighbor(std::size_t rank, std::size_t dim, Direction = Direction::plus) const
  {
    detail::require_node(rank, size(), "Hypercube::neighbor");
    detail::require_dim(dim, ndims(), "Hypercube::neighbor");
    return rank ^ (std::size_t{1} << dim);
  }
  /// Hamming distance.
  constexpr std::size_t distance(std::size_t a, std::size_t b) const noexcept
  {
    return detail::popcount(a ^ b);
  }
  /// E-cube: flip the lowest differing bit.
  constexpr std::size_t next_hop(std::size_t from, std::size_t to) const noexcept
  {
    const std::size_t diff = from ^ to;
    return diff == 0 ? from : from ^ (diff & (~diff + 1));
  }
  constexpr std::size_t diameter() const noexcept { return ndims(); }
  /// Dense id of the directed link from -> to (neighbours): from * ndims() + dimension.
  constexpr std::size_t link_index(std::size_t from, std::size_t to) const noexcept
  {
    return from * ndims() + detail::countr_zero(from ^ to);
  }
  /// One more than the largest link_index.
  constexpr std::size_t link_count_bound() const noexcept { return size() * ndims(); }

  /// Coordinates: bit i of the rank for dimension i (a fixed-size array for static D; for
  /// a dynamic one, max_hypercube_dims entries, 0 past ndims()). std::invalid_argument for
  /// a rank it does not have.
  constexpr auto coords(std::size_t rank) const
  {
    detail::require_node(rank, size(), "Hypercube::coords");
    if constexpr (D != dynamic_extent) {
      std::array<std::size_t, D> c{};
      for (std::size_t i = 0; i < D; ++i) c[i] = (rank >> i) & 1u;
      return c;
    } else {
      std::array<std::size_t, max_hypercube_dims> c{};
      for (std::size_t i = 0; i < ndims(); ++i) c[i] = (rank >> i) & 1u;
      return c;
    }
  }
  /// Rank from coordinates (bit i = c[i]): one per dimension (a dynamic hypercube also
  /// takes coords()' longer array, whose entries past ndims() are 0). Otherwise a compile
  /// error for a static D, std::invalid_argument for a dynamic one.
  template <std::size_t N>
  constexpr std::size_t rank_of(const std::array<std::size_t, N>& c) const
  {
    static_assert(D == dynamic_extent || N == D,
                  "collectives::Hypercube<D>::rank_of: needs one coordinate per dimension (D of them)");
    detail::require(N >= ndims(), "collectives::Hypercube::rank_of: needs one coordinate per dimension");
    std::size_t r = 0;
    for (std::size_t i = 0; i < N; ++i) {
      detail::require(c[i] < 2, "collectives::Hypercube::rank_of: coordinate out of range");
      detail::require(i < ndims() || c[i] == 0, "collectives::Hypercube::rank_of: needs one coordinate per dimension");
      r |= c[i] << (i < ndims() ? i : 0);
    }
    return r;
  }

  friend constexpr bool operator==(const Hypercube& a, const Hypercube& b) { return a.ndims() == b.ndims(); }

private:
  [[no_unique_address]] detail::DynamicValues<D == dynamic_extent ? 1 : 0> dims_{};
};

} // namespace collectives
