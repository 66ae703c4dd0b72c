#pragma once
// Checks an algorithm makes of its topology, shared by every collective. Each takes the
// caller's name so the message names the call; the static twins live in the schedules as
// static_asserts (their messages must be literals).

#include <collectives/detail/power_of_two.hpp> // require_power_of_two_ranks
#include <collectives/detail/require.hpp>
#include <collectives/topology/concepts.hpp>

#include <bit>
#include <cstddef>

namespace collectives::detail {

/// True when p is a power of two; usable in static_assert.
constexpr bool is_power_of_two(std::size_t p) { return p != 0 && std::has_single_bit(p); }

/// log2 of a power of two.
constexpr std::size_t log2_exact(std::size_t p) { return static_cast<std::size_t>(std::countr_zero(p)); }

/// Smallest k with 2^k >= p.
constexpr std::size_t ceil_log2(std::size_t p) { return p <= 1 ? 0 : static_cast<std::size_t>(std::bit_width(p - 1)); }

} // namespace collectives::detail
