#pragma once
// The p and roots the collectives' tests sweep.

#include "sanitizers.hpp"

#include <cstddef>
#include <vector>

namespace collectives::testing {

/// Every p of 1..64; under the sanitizers (64-thread teams 10-20x slower) every p to 17
/// and those around the powers of two 32 and 64.
inline std::vector<std::size_t> sweep_sizes()
{
  std::vector<std::size_t> ps;
  for (std::size_t p = 1; p <= 64; ++p)
    if (!sanitized || p <= 17 || p == 31 || p == 32 || p == 33 || p == 63 || p == 64) ps.push_back(p);
  return ps;
}

/// Roots first, middle and last of p ranks, without repeats.
inline std::vector<std::size_t> roots_of(std::size_t p)
{
  std::vector<std::size_t> roots{0};
  if (p / 2 != 0) roots.push_back(p / 2);
  if (p - 1 != 0 && p - 1 != p / 2) roots.push_back(p - 1);
  return roots;
}

} // namespace collectives::testing
