#pragma once
// A product of rings as a value: what the per-dimension schedules (dimensional alltoall,
// all-gather and reduce-scatter, the mesh shift, the trees along a mesh) need of a mesh,
// torus or hypercube. Schedules hold this instead of the topology, so one schedule type
// serves Mesh<4, 4>, Torus<2, 3, 4>, Hypercube<5> and their dynamic forms alike.

#include <collectives/detail/require.hpp>
#include <collectives/topology/concepts.hpp>

#include <array>
#include <cstddef>

namespace collectives {

/// Up to 32 rings (2^32 ranks at the least; kept small because schedules copy it), in routing order (the fastest-varying first), with the member names of
/// a product topology: dimension i of a Rings is dimension route_dim(i) of the topology
/// it was taken from.
struct Rings {
  static constexpr std::size_t max_dims = 32;
  std::size_t count = 0;
  std::array<std::size_t, max_dims> extents;
  std::array<std::size_t, max_dims> strides;

  /// No rings. At run time the entries past count are left unset: nothing reads them, and
  /// zeroing 512 bytes (`rep stos`) on every call whose schedule holds rings (dimensional
  /// and linear algorithms) is a cost of its own. Constant evaluation zeroes them (a
  /// constexpr value must be fully initialised).
  constexpr Rings() noexcept
  {
    if (__builtin_is_constant_evaluated()) {
      extents = {};
      strides = {};
    }
  }

  /// The same rings (entries past count are not compared).
  friend constexpr bool operator==(const Rings& a, const Rings& b)
  {
    if (a.count != b.count) return false;
    for (std::size_t i = 0; i < a.count; ++i)
      if (a.extents[i] != b.extents[i] || a.strides[i] != b.strides[i]) return false;
    return true;
  }

  constexpr std::size_t ndims() const { return count; }
  constexpr std::size_t extent(std::size_t i) const { return extents[i]; }
  constexpr std::size_t stride(std::size_t i) const { return strides[i]; }
  /// The k-th dimension in routing order: k itself.
  constexpr std::size_t route_dim(std::size_t k) const { return k; }
  constexpr std::size_t size() const
  {
    std::size_t p = 1;
    for (std::size_t i = 0; i < count; ++i) p *= extents[i];
    return p;
  }
  constexpr std::size_t coord(std::size_t rank, std::size_t dim) const { return (rank / strides[dim]) % extents[dim]; }
  /// `rank` moved by k (mod extent) along dimension `dim`.
  constexpr std::size_t shift_along(std::size_t rank, std::size_t dim, std::size_t k) const
  {
    const std::size_t z = extents[dim];
    const std::size_t c = coord(rank, dim);
    return rank - c * strides[dim] + ((c + k % z) % z) * strides[dim];
  }
};

/// The rings of a product topology, in its routing order.
template <product_topology T>
constexpr Rings rings_of(const T& t)
{
  Rings r;
  detail::require(t.ndims() <= Rings::max_dims, "collectives: the per-dimension algorithms take at most 32 dimensions");
  r.count = t.ndims();
  for (std::size_t k = 0; k < r.count; ++k) {
    const std::size_t dim = t.route_dim(k);
    r.extents[k] = t.extent(dim);
    r.strides[k] = t.stride(dim);
  }
  return r;
}

} // namespace collectives
