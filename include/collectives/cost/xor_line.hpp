#pragma once
// The link loads of XOR partners along one ring of a torus (symmetric_cost.hpp: the all-port
// hypercube all-to-all on a torus of power-of-two rings, where every rank sends to all its
// hypercube neighbours in one step), from difference arrays instead of message by message.

#include <collectives/cost/routes.hpp>
#include <collectives/detail/range_max.hpp>
#include <collectives/detail/zeroed_array.hpp>

#include <cstddef>

namespace collectives::detail {

/// Every node x of a ring of z = 2^k nodes sends one message to x XOR c[i] for each i < n
/// (each c[i] a power of two below z). The routes go the shorter way round, plus on a tie
/// (ring_plus): for c < z/2 the nodes whose bit c is clear send c hops plus and the others
/// c hops minus; for c = z/2 every node sends z/2 hops plus. A link's load counts the
/// messages that cross it (one-port: their distinct senders, each the longest of its
/// messages that way, as they all leave from it); a message's worst load is the largest on
/// its links.
///
/// Writes the worst load of family i's message from node x to worst[i][x] and returns the
/// largest load of any link. O(z (n + log z)).
constexpr std::size_t xor_line(std::size_t z, const std::size_t* c, std::size_t n, bool one_port,
                               std::size_t* const* worst)
{
  // Difference arrays of the loads of the links that leave node y plus (y -> y + 1) and
  // minus (y -> y - 1). (Unsigned arithmetic wraps; the prefix sums are the loads, never
  // negative.)
  ZeroedArray<std::size_t> diff[2];
  diff[0].zero(z);
  diff[1].zero(z);
  auto arc = [&](std::size_t dir, std::size_t x, std::size_t len) {
    // Plus: the links of x, x + 1, ..., x + len - 1; minus: of x - len + 1, ..., x.
    add_ring_arc(diff[dir].data(), 1, z, dir == 0 ? x : (x + z - len + 1) % z, len);
  };
  auto plus = [&](std::size_t i, std::size_t x) { return ring_plus((x & c[i]) == 0 ? c[i] : z - c[i], z); };
  for (std::size_t x = 0; x < z; ++x) {
    std::size_t longest[2] = {0, 0};
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t dir = plus(i, x) ? 0 : 1;
      if (!one_port) {
        arc(dir, x, c[i]);
      } else if (longest[dir] < c[i]) {
        longest[dir] = c[i];
      }
    }
    for (std::size_t dir = 0; dir < 2 && one_port; ++dir)
      if (longest[dir] > 0) arc(dir, x, longest[dir]);
  }
  std::size_t most = 0;
  RangeMax load[2];
  for (std::size_t dir = 0; dir < 2; ++dir) {
    ZeroedArray<std::size_t>& d = diff[dir];
    for (std::size_t y = 1; y < z; ++y) d[y] += d[y - 1];
    load[dir].build(z, [&](std::size_t y) { return d[y]; });
    for (std::size_t y = 0; y < z; ++y) most = most < d[y] ? d[y] : most;
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t x = 0; x < z; ++x)
      worst[i][x] = plus(i, x) ? load[0].max_cyclic(x, c[i]) : load[1].max_cyclic((x + z - c[i] + 1) % z, c[i]);
  return most;
}

} // namespace collectives::detail
