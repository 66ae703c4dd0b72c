#pragma once
// Torus<Z...>: the N-dimensional wraparound network, with Ring<P> and Mesh<R,C> as its 1-D
// and 2-D cases. Each extent is static or std::dynamic_extent; only dynamic ones are
// stored, so a fully static torus is an empty type usable in constant expressions.

#include <collectives/detail/require.hpp>
#include <collectives/topology/extents.hpp>
#include <collectives/topology/product.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <stdexcept>

namespace collectives {

/// An N-D torus (wraparound mesh) with extents Z... (each >= 1, or dynamic_extent).
/// Ranks are numbered row-major: the last dimension varies fastest, so on Mesh<R,C> node
/// (r, c) is rank r*C + c. Routing is dimension order, last dimension first (XY on a mesh).
template <std::size_t... Z>
class Torus : public detail::ProductTopology<Torus<Z...>> {
  static_assert(sizeof...(Z) >= 1, "collectives::Torus<Z...>: needs at least one extent");
  static_assert(((Z >= 1) && ...), "collectives::Torus<Z...>: every extent must be at least 1");

  static constexpr std::size_t n_ = sizeof...(Z);
  static constexpr std::array<std::size_t, n_> static_extents_{Z...};
  static constexpr std::size_t n_dynamic_ = ((Z == dynamic_extent ? 1 : 0) + ...);

  static constexpr std::size_t static_product()
  {
    std::size_t p = 1;
    for (std::size_t z : static_extents_)
      if (z != dynamic_extent) p = detail::saturating_mul(p, z);
    return p;
  }
  static_assert(static_product() < dynamic_extent,
                "collectives::Torus<Z...>: the number of nodes does not fit in std::size_t");
  // Fully static: the strides as a table (a lookup, not a loop: the estimate's constant
  // evaluation asks for them at every hop, and the compilers count every step).
  static constexpr std::array<std::size_t, n_> static_strides_ = [] {
    std::array<std::size_t, n_> s{};
    std::size_t v = 1;
    for (std::size_t i = n_; i-- > 0;) {
      s[i] = v;
      if (static_extents_[i] != dynamic_extent) v = detail::saturating_mul(v, static_extents_[i]);
    }
    return s;
  }();

  template <std::size_t...> friend class Torus;

public:
  /// Number of dimensions (static).
  static constexpr std::size_t ndims() noexcept { return n_; }
  /// Extent of dimension i as given in the type (dynamic_extent when run-time).
  static constexpr std::size_t static_extent(std::size_t i) noexcept { return static_extents_[i]; }
  /// Number of run-time extents.
  static constexpr std::size_t num_dynamic() noexcept { return n_dynamic_; }
  /// Number of nodes when every extent is static, else dynamic_extent.
  static constexpr std::size_t static_size = n_dynamic_ == 0 ? static_product() : dynamic_extent;

  /// Fully static: nothing to give.
  constexpr Torus() noexcept requires(n_dynamic_ == 0) = default;

  /// From the dynamic extents only, or from all extents (static ones must then agree).
  /// Throws std::invalid_argument naming the problem (a compile error in constant evaluation).
  // The constraint is spelled with Z... rather than n_dynamic_ and n_: class template
  // argument deduction (Torus{2, 3, 4}) checks it with Z... empty, and naming a member
  // would instantiate Torus<> and fail its static_assert.
  template <std::integral... I>
    requires(sizeof...(I) > 0 &&
             (sizeof...(I) == ((Z == dynamic_extent ? 1 : 0) + ... + 0) || sizeof...(I) == sizeof...(Z)))
  constexpr explicit Torus(I... extents)
  {
    const std::array<std::size_t, sizeof...(I)> given{static_cast<std::size_t>(extents)...};
    // Compared in each argument's own type: a cast to a signed type would turn an extent
    // of 2^63 or more into a negative number and reject it as "less than 1".
    (detail::require(extents >= 1, "collectives::Torus: every extent must be at least 1"), ...);
    if constexpr (sizeof...(I) == n_dynamic_) {
      if constexpr (n_dynamic_ > 0)
        for (std::size_t k = 0; k < n_dynamic_; ++k) dynamic_[k] = given[k];
    } else {
      std::size_t k = 0;
      for (std::size_t i = 0; i < n_; ++i) {
        if (static_extents_[i] == dynamic_extent) {
          if constexpr (n_dynamic_ > 0) dynamic_[k++] = given[i];
        } else
          detail::require(given[i] == static_extents_[i],
                          "collectives::Torus: a given extent differs from the static extent");
      }
    }
    check_size();
  }

  /// From another torus of the same number of dimensions: implicit when it only turns
  /// static extents into dynamic ones, explicit (and checked) otherwise.
  template <std::size_t... W>
    requires(sizeof...(W) == sizeof...(Z)) // not n_: see the constructor above
  constexpr explicit(!((Z == dynamic_extent || Z == W) && ...)) Torus(const Torus<W...>& other)
  {
    static_assert(((Z == dynamic_extent || W == dynamic_extent || Z == W) && ...),
                  "collectives::Torus: converting between tori whose static extents differ");
    std::size_t k = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      if (static_extents_[i] == dynamic_extent) {
        if constexpr (n_dynamic_ > 0) dynamic_[k++] = other.extent(i);
      } else
        detail::require(other.extent(i) == static_extents_[i],
                        "collectives::Torus: converting to a static extent that the run-time extent does not match");
    }
  }

  /// Extent of dimension i.
  constexpr std::size_t extent(std::size_t i) const
  {
    if (static_extents_[i] != dynamic_extent) return static_extents_[i];
    std::size_t k = 0;
    for (std::size_t j = 0; j < i; ++j) k += static_extents_[j] == dynamic_extent ? 1u : 0u;
    return dynamic_[k];
  }

  /// Rank distance between neighbours along dimension i (row-major).
  constexpr std::size_t stride(std::size_t i) const
  {
    if constexpr (n_dynamic_ == 0) return static_strides_[i];
    std::size_t s = 1;
    for (std::size_t j = i + 1; j < n_; ++j) s *= extent(j);
    return s;
  }

  /// Dimension routed k-th: the last (fastest-varying) first.
  static constexpr std::size_t route_dim(std::size_t k) noexcept { return n_ - 1 - k; }

  /// Coordinates of `rank`, one per dimension (std::invalid_argument for a rank it does
  /// not have; a compile error when constant).
  constexpr std::array<std::size_t, n_> coords(std::size_t rank) const
  {
    detail::require_node(rank, this->size(), "Torus::coords");
    std::array<std::size_t, n_> c{};
    for (std::size_t i = 0; i < n_; ++i) c[i] = this->coord(rank, i);
    return c;
  }

  /// Rank of the node at coordinates c (each c[i] < extent(i)).
  constexpr std::size_t rank_of(const std::array<std::size_t, n_>& c) const
  {
    std::size_t r = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      detail::require(c[i] < extent(i), "collectives::Torus::rank_of: coordinate out of range");
      r = r * extent(i) + c[i];
    }
    return r;
  }

  /// The torus of p nodes where p decides it: the run-time extent (at most one) is p over
  /// the static extents' product, which must divide it (Ring<>::of_size(6) is Ring<>{6},
  /// Mesh<2>::of_size(6) is Mesh<2>{3}); a static torus must have p nodes. Throws
  /// std::invalid_argument naming p otherwise (a compile error when constant).
  static constexpr Torus of_size(std::size_t p)
    requires(n_dynamic_ <= 1)
  {
    if constexpr (n_dynamic_ == 0) {
      if (p != static_product())
        detail::throw_invalid({"collectives::Torus::of_size: ", p, " nodes, but the static torus has ", static_product()});
      return Torus{};
    } else {
      if (p == 0 || p % static_product() != 0)
        detail::throw_invalid({"collectives::Torus::of_size: ", p,
                               " nodes are not a positive multiple of the static extents' product ", static_product()});
      return Torus(p / static_product());
    }
  }

  friend constexpr bool operator==(const Torus& a, const Torus& b)
  {
    for (std::size_t i = 0; i < n_; ++i)
      if (a.extent(i) != b.extent(i)) return false;
    return true;
  }

private:
  constexpr void check_size() const
  {
    std::size_t p = 1;
    for (std::size_t i = 0; i < n_; ++i) p = detail::saturating_mul(p, extent(i));
    detail::require(p < dynamic_extent, "collectives::Torus: the number of nodes does not fit in std::size_t");
  }

  [[no_unique_address]] detail::DynamicValues<n_dynamic_> dynamic_{};
};

template <std::integral... I>
Torus(I...) -> Torus<((void)sizeof(I), dynamic_extent)...>;

/// A ring (1-D torus) of P nodes; Ring<> takes P at run time.
template <std::size_t P = dynamic_extent>
using Ring = Torus<P>;

/// A 2-D wraparound mesh of R rows and C columns; Mesh<> takes both at run time.
template <std::size_t R = dynamic_extent, std::size_t C = dynamic_extent>
using Mesh = Torus<R, C>;

} // namespace collectives
