#pragma once
// The power-of-two requirement of the hypercube schedules, in the pattern of require.hpp:
// a compile error in constant evaluation, std::invalid_argument at run time.

#include <collectives/detail/config.hpp>
#include <collectives/detail/require.hpp>

#include <bit>
#include <cstddef>
#include <string>

namespace collectives::detail {

// Out of line and never constexpr (like throw_invalid_argument): in constant evaluation
// the compiler stops at this call, whose arguments name the call and p.
[[noreturn]] COLLECTIVES_COLD inline void throw_not_power_of_two(const char* call, std::size_t p)
{
  throw_invalid({call, ": needs a power-of-two number of ranks, got ", p});
}

/// Throws std::invalid_argument("<call>: needs a power-of-two number of ranks, got <p>")
/// unless p is a power of two; a compile error in constant evaluation.
constexpr void require_power_of_two_ranks(std::size_t p, const char* call)
{
  if (!std::has_single_bit(p)) throw_not_power_of_two(call, p);
}


} // namespace collectives::detail
