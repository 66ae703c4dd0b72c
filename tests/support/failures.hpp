#pragma once
// Failures seen on the ranks of a threads team: Catch2's assertions are not thread-safe,
// so the ranks collect what went wrong and the main thread reports it.

#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace collectives::testing {

/// What went wrong on one rank.
using Failures = std::vector<std::string>;

/// Fails the test case when any rank failed, naming the first few failures.
inline void report(const std::vector<Failures>& per_rank)
{
  std::size_t n = 0;
  for (const auto& f : per_rank)
    for (const auto& what : f)
      if (++n <= 20) FAIL_CHECK(what); // the first few tell the story
  CHECK(n == 0);
}

} // namespace collectives::testing
