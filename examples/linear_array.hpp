#pragma once
// A user-defined topology: a linear array (a path) of n nodes, 0 - 1 - ... - n-1, without
// the wraparound link of a ring. It is not part of collectives: it shows that a topology
// needs only size(), next_hop(a, b) and distance(a, b) to satisfy collectives::topology,
// after which the generic parts of the library (collectives::route, collectives::hops,
// static_size_v) work on it. diameter() is optional, as are is_link() and the rest.
//
// Used by examples/user_topology.cpp and tests/unit/user_topology.cpp.

#include <collectives/topology/concepts.hpp>
#include <collectives/topology/route.hpp>

#include <cstddef>
#include <stdexcept>

namespace user {

/// n nodes in a line; node i is linked to i - 1 and i + 1 when they exist.
class LinearArray {
public:
  /// A linear array of n >= 1 nodes; std::invalid_argument otherwise.
  constexpr explicit LinearArray(std::size_t n) : n_(n)
  {
    if (n == 0) throw std::invalid_argument("user::LinearArray: needs at least one node");
  }

  constexpr std::size_t size() const noexcept { return n_; }

  /// One step towards `to`: the only route there is.
  constexpr std::size_t next_hop(std::size_t from, std::size_t to) const noexcept
  {
    return from < to ? from + 1 : from > to ? from - 1 : from;
  }

  /// |a - b| hops.
  constexpr std::size_t distance(std::size_t a, std::size_t b) const noexcept { return a < b ? b - a : a - b; }

  /// Optional: the two ends are n - 1 hops apart.
  constexpr std::size_t diameter() const noexcept { return n_ - 1; }

  /// Optional: a -> b is a link when they are adjacent.
  constexpr bool is_link(std::size_t a, std::size_t b) const noexcept { return distance(a, b) == 1; }

  friend constexpr bool operator==(const LinearArray&, const LinearArray&) = default;

private:
  std::size_t n_;
};

static_assert(collectives::topology<LinearArray>);
static_assert(!collectives::product_topology<LinearArray>); // no dimensions to walk
static_assert(collectives::static_size_v<LinearArray> == collectives::dynamic_extent);

} // namespace user
