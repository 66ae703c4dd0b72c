#pragma once
// The p and roots the collectives' tests sweep.

#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

namespace collectives::testing {

/// The team sizes of the threads sweeps in [lo, hi]: 1-5, 7-9 (small, odd, around 8), 16
/// and 17, 31-33 (around a power of two, a prime), 64. The verifier proves every schedule
/// for every p to 64 and beyond (tests/unit/schedules_verified.cpp, verifier.cpp); these
/// runs exercise the executor and the threads transport, which see nothing new between.
inline std::vector<std::size_t> sweep_sizes(std::size_t lo = 1, std::size_t hi = 64)
{
  std::vector<std::size_t> ps;
  for (std::size_t p : {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 64})
    if (lo <= p && p <= hi) ps.push_back(p);
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

/// f(p) for every p of the sweep in [lo, hi], naming p in any failure.
template <class F>
void for_sweep(std::size_t lo, std::size_t hi, F f)
{
  for (std::size_t p : sweep_sizes(lo, hi)) {
    INFO("p = " << p);
    f(p);
  }
}

} // namespace collectives::testing

/// Three TEST_CASEs "<name>, p = 1..17", "<name>, p = 31..33" and "<name>, p = 64", each
/// calling the callable after `tags` (a lambda taking the team size; variadic, as its body
/// may hold commas) for the sweep's p in its range: the sweep's cost is mostly in its large
/// teams, and three ctest entries run in parallel.
#define COLLECTIVES_SWEEP_TEST_CASES(name, tags, ...)                                                          \
  TEST_CASE(name ", p = 1..17", tags) { ::collectives::testing::for_sweep(1, 17, __VA_ARGS__); }               \
  TEST_CASE(name ", p = 31..33", tags) { ::collectives::testing::for_sweep(31, 33, __VA_ARGS__); }             \
  TEST_CASE(name ", p = 64", tags) { ::collectives::testing::for_sweep(64, 64, __VA_ARGS__); }

/// COLLECTIVES_SWEEP_TEST_CASES once per type of `list` (a std::tuple of algorithm types,
/// e.g. algorithm_types_and_default<Collective::alltoall> of support/registry.hpp), each
/// range a TEMPLATE_LIST_TEST_CASE: the callable sees the algorithm as TestType, and every
/// algorithm's sweep is its own ctest entries.
#define COLLECTIVES_ALGORITHM_SWEEP_TEST_CASES(name, tags, list, ...)                                          \
  TEMPLATE_LIST_TEST_CASE(name ", p = 1..17", tags, list) { ::collectives::testing::for_sweep(1, 17, __VA_ARGS__); } \
  TEMPLATE_LIST_TEST_CASE(name ", p = 31..33", tags, list)                                                     \
  {                                                                                                             \
    ::collectives::testing::for_sweep(31, 33, __VA_ARGS__);                                                     \
  }                                                                                                             \
  TEMPLATE_LIST_TEST_CASE(name ", p = 64", tags, list) { ::collectives::testing::for_sweep(64, 64, __VA_ARGS__); }
