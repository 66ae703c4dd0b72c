#pragma once
// Static or run-time extents, as in std::mdspan: one sentinel (std::dynamic_extent) marks
// an extent given at run time, and only those are stored.

#include <collectives/detail/require.hpp>

#include <array>
#include <cstddef>
#include <limits>
#include <span>

namespace collectives {

/// The sentinel for an extent known only at run time (the same value as std::mdspan's).
inline constexpr std::size_t dynamic_extent = std::dynamic_extent;

namespace detail {

/// Storage for N run-time values; empty when N == 0, so fully static types are empty.
template <std::size_t N>
struct DynamicValues {
  std::array<std::size_t, N> values{};
  constexpr std::size_t operator[](std::size_t i) const { return values[i]; }
  constexpr std::size_t& operator[](std::size_t i) { return values[i]; }
  friend constexpr bool operator==(const DynamicValues&, const DynamicValues&) = default;
};

template <>
struct DynamicValues<0> {
  constexpr std::size_t operator[](std::size_t) const { return 0; }
  friend constexpr bool operator==(const DynamicValues&, const DynamicValues&) = default;
};

/// a * b, or max() when it overflows; used to reject sizes that do not fit.
constexpr std::size_t saturating_mul(std::size_t a, std::size_t b)
{
  if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a)
    return std::numeric_limits<std::size_t>::max();
  return a * b;
}

/// n + rings * per_ring directed links, or std::invalid_argument (a compile error when
/// constant) when that does not fit in std::size_t (num_links of Hypercube<63>: 63 * 2^63).
constexpr std::size_t add_links(std::size_t n, std::size_t rings, std::size_t per_ring)
{
  std::size_t links = 0;
  if (__builtin_mul_overflow(rings, per_ring, &links) || __builtin_add_overflow(n, links, &n))
    throw_invalid_argument("collectives: num_links: the number of links does not fit in std::size_t");
  return n;
}

} // namespace detail
} // namespace collectives
