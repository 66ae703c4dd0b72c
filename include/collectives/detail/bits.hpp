#pragma once
// Bit arithmetic on rank counts, written once for the whole library (schedules, cost,
// topologies): powers of two, logarithms, and the largest power of two below p.

#include <bit>
#include <cstddef>

namespace collectives::detail {

/// True when p is a power of two (p = 2^d, d >= 0); usable in static_assert.
constexpr bool is_power_of_two(std::size_t p) { return std::has_single_bit(p); }

/// log2 of a power of two.
constexpr std::size_t log2_exact(std::size_t p) { return static_cast<std::size_t>(std::countr_zero(p)); }

/// floor(log2 p); 0 for p <= 1.
constexpr std::size_t floor_log2(std::size_t p) { return p <= 1 ? 0 : static_cast<std::size_t>(std::bit_width(p) - 1); }

/// ceil(log2 p), the smallest k with 2^k >= p; 0 for p <= 1.
constexpr std::size_t ceil_log2(std::size_t p) { return p <= 1 ? 0 : static_cast<std::size_t>(std::bit_width(p - 1)); }

/// The largest power of two not above p (0 for p = 0).
constexpr std::size_t pow2_floor(std::size_t p) { return p == 0 ? 0 : std::bit_floor(p); }

/// gamma(q): the largest j with 2^j dividing q (q > 0).
constexpr std::size_t trailing_zeros(std::size_t q) { return static_cast<std::size_t>(std::countr_zero(q)); }

} // namespace collectives::detail
