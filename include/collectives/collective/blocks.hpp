#pragma once
// Per-rank views of a collective's result.

#include <collectives/collective/buffers.hpp>

#include <cstddef>
#include <ranges>
#include <span>
#include <type_traits>

namespace collectives {

/// Range r cut into `count` equal blocks, as a random-access view of std::spans:
/// `for (std::span<double> b : blocks(recv, comm.size()))` walks the per-rank blocks of an
/// alltoall or allgather result (C++20 has no views::chunk). The last r.size() % count
/// elements are in no block. Requirements: count >= 1.
template <buffer R>
constexpr auto blocks(R&& r, std::size_t count)
{
  using E = std::remove_reference_t<std::ranges::range_reference_t<R>>;
  const std::span<E> all(std::ranges::data(r), std::ranges::size(r));
  const std::size_t m = count == 0 ? 0 : all.size() / count;
  return std::views::iota(std::size_t{0}, count) |
         std::views::transform([all, m](std::size_t i) { return all.subspan(i * m, m); });
}

} // namespace collectives
