#pragma once
// Communicator: an endpoint of some transport bound to a topology of the same size.

#include <collectives/detail/require.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/topology/torus.hpp>
#include <collectives/transport/concepts.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace collectives {

/// Binds endpoint `E` (threads, MPI, recording, a user's own) to topology `T`.
/// The sizes must agree: checked at compile time when both are static, else the
/// constructor throws std::invalid_argument naming both sizes.
template <endpoint E, topology T>
class Communicator {
public:
  using endpoint_type = E;
  using topology_type = T;

  constexpr Communicator(E& ep, T topo) : ep_(&ep), topo_(topo)
  {
    if constexpr (requires { E::static_size; } && static_size_v<T> != dynamic_extent)
      static_assert(E::static_size == static_size_v<T>,
                    "collectives::Communicator: the endpoint's team size differs from the topology's size");
    if (ep.size() != topo_.size())
      throw std::invalid_argument("collectives::Communicator: the transport has " + std::to_string(ep.size()) +
                                  " ranks but the topology has " + std::to_string(topo_.size()) + " nodes");
  }

  /// A ring of the endpoint's size.
  explicit Communicator(E& ep) requires std::same_as<T, Ring<>> : Communicator(ep, Ring<>{ep.size()}) {}

  std::size_t rank() const { return ep_->rank(); }
  std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  E& endpoint() const { return *ep_; }

private:
  E* ep_;
  T topo_;
};

template <endpoint E>
Communicator(E&) -> Communicator<E, Ring<>>;

/// True for Communicator<E, T>.
template <class C>
concept communicator = requires(const C& c) {
  typename C::endpoint_type;
  typename C::topology_type;
  { c.rank() } -> std::convertible_to<std::size_t>;
  { c.size() } -> std::convertible_to<std::size_t>;
  c.topology();
  c.endpoint();
};

} // namespace collectives
