#pragma once
// Bit arithmetic on rank counts, written once for the whole library (schedules, cost,
// topologies): powers of two, logarithms, and the largest power of two below p.

#include <bit>
#include <cstddef>
#include <limits>

namespace collectives::detail {

// popcount, countr_zero and bit_width as the compilers' builtins where they have them (g++
// and clang++ both define __GNUC__): constant evaluation counts every statement of <bit>'s
// templates (about ten clang++ steps a call, against one for a builtin), and a
// compile-time select() on p = 1024 makes hundreds of thousands of these calls.

/// The number of 1-bits of x.
constexpr std::size_t popcount(std::size_t x)
{
#if defined(__GNUC__)
  return static_cast<std::size_t>(__builtin_popcountll(x));
#else
  return static_cast<std::size_t>(std::popcount(x));
#endif
}

/// The number of 0-bits below the lowest 1-bit of x (the width of std::size_t for 0).
constexpr std::size_t countr_zero(std::size_t x)
{
#if defined(__GNUC__)
  return x == 0 ? std::numeric_limits<std::size_t>::digits : static_cast<std::size_t>(__builtin_ctzll(x));
#else
  return static_cast<std::size_t>(std::countr_zero(x));
#endif
}

/// The number of bits x needs (0 for 0).
constexpr std::size_t bit_width(std::size_t x)
{
#if defined(__GNUC__)
  return x == 0 ? 0 : static_cast<std::size_t>(std::numeric_limits<unsigned long long>::digits - __builtin_clzll(x));
#else
  return static_cast<std::size_t>(std::bit_width(x));
#endif
}

/// True when p is a power of two (p = 2^d, d >= 0); usable in static_assert.
constexpr bool is_power_of_two(std::size_t p) { return p != 0 && (p & (p - 1)) == 0; }

/// log2 of a power of two.
constexpr std::size_t log2_exact(std::size_t p) { return countr_zero(p); }

/// floor(log2 p); 0 for p <= 1.
constexpr std::size_t floor_log2(std::size_t p) { return p <= 1 ? 0 : bit_width(p) - 1; }

/// ceil(log2 p), the smallest k with 2^k >= p; 0 for p <= 1.
constexpr std::size_t ceil_log2(std::size_t p) { return p <= 1 ? 0 : bit_width(p - 1); }

/// The largest power of two not above p (0 for p = 0).
constexpr std::size_t pow2_floor(std::size_t p) { return p == 0 ? 0 : std::size_t{1} << floor_log2(p); }

/// gamma(q): the largest j with 2^j dividing q (q > 0).
constexpr std::size_t trailing_zeros(std::size_t q) { return countr_zero(q); }

} // namespace collectives::detail
