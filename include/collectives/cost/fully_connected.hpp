#pragma once
// FullyConnected<P>: a network in which every pair of nodes has its own link (a crossbar,
// or a transport that moves any message in one hop, as the threads transport does). It is
// the network the "standard" any-p cost formulas assume (Bruck, Rabenseifner, recursive
// doubling in MPICH's papers): every message is one hop and two messages meet on a link
// only when they have the same source and destination. It satisfies `topology`, so every
// schedule can be estimated on it.

#include <collectives/detail/require.hpp>
#include <collectives/topology/extents.hpp>

#include <cstddef>

namespace collectives {

/// P nodes, all pairwise linked; FullyConnected<> takes P at run time.
template <std::size_t P = dynamic_extent>
class FullyConnected {
  static_assert(P == dynamic_extent || P >= 1, "collectives::FullyConnected<P>: P must be at least 1");

public:
  /// Number of nodes when static, else dynamic_extent.
  static constexpr std::size_t static_size = P;

  constexpr FullyConnected() noexcept requires(P != dynamic_extent) = default;

  /// p >= 1 nodes (equal to P when static); std::invalid_argument otherwise.
  constexpr explicit FullyConnected(std::size_t p)
  {
    detail::require(p >= 1, "collectives::FullyConnected: needs at least one node");
    if constexpr (P == dynamic_extent) p_[0] = p;
    else detail::require(p == P, "collectives::FullyConnected: the given size differs from the static one");
  }

  /// The same as FullyConnected(p): Communicator(ep) takes it from the endpoint's size.
  static constexpr FullyConnected of_size(std::size_t p) { return FullyConnected(p); }

  constexpr std::size_t size() const noexcept
  {
    if constexpr (P == dynamic_extent) return p_[0];
    else return P;
  }
  /// Straight there.
  constexpr std::size_t next_hop(std::size_t, std::size_t to) const noexcept { return to; }
  /// 1 between distinct nodes.
  constexpr std::size_t distance(std::size_t a, std::size_t b) const noexcept { return a == b ? 0 : 1; }
  constexpr std::size_t diameter() const noexcept { return size() > 1 ? 1 : 0; }
  /// Links out of (and into) each node.
  constexpr std::size_t degree() const noexcept { return size() - 1; }
  /// Number of directed links.
  constexpr std::size_t num_links() const noexcept { return size() * (size() - 1); }

  friend constexpr bool operator==(const FullyConnected& a, const FullyConnected& b) { return a.size() == b.size(); }

private:
  [[no_unique_address]] detail::DynamicValues<P == dynamic_extent ? 1 : 0> p_{};
};

} // namespace collectives
