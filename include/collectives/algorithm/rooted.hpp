#pragma once
// Shared by the rooted collectives (broadcast, reduce, scatter, gather): the root check
// and the tree shapes their algorithm tags stand for.

#include <collectives/algorithm/requirements.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/cost/selection.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/topology/hypercube.hpp>

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>

namespace collectives {

/// A root known at compile time: broadcast(comm, buf, collectives::root_c<3>).
template <std::size_t R>
inline constexpr std::integral_constant<std::size_t, R> root_c{};

namespace detail {

template <class T>
concept static_root = requires { T::value; } && std::is_empty_v<T>;

/// The root as a rank; out of range is a compile error when both the root and the
/// topology's size are static, else std::invalid_argument naming the call.
template <class Topo, class Root>
constexpr std::size_t checked_root(std::size_t p, Root root, const char* call)
{
  if constexpr (static_root<Root> && static_size_v<Topo> != dynamic_extent)
    static_assert(Root::value < static_size_v<Topo>, "collectives: the root is not a rank of the communicator");
  if constexpr (std::is_signed_v<decltype(+root)>)
    if (root < 0) throw_invalid_argument(std::string(call) + ": the root is negative");
  const auto r = static_cast<std::size_t>(root);
  if (r >= p)
    throw_invalid_argument(std::string(call) + ": root " + to_text(r) + " is not a rank of a communicator of " +
                           to_text(p));
  return r;
}

/// The tree shape of the hypercube algorithms; p must be a power of two.
template <class Topo>
constexpr TreeShape hypercube_shape(const Topo& topo, const char* call)
{
  if constexpr (static_size_v<Topo> != dynamic_extent)
    static_assert(is_power_of_two(static_size_v<Topo>),
                  "collectives: a hypercube algorithm needs a power-of-two number of ranks");
  else
    require_power_of_two_ranks(topo.size(), call);
  return bits_shape(topo.size());
}

} // namespace detail

/// Tags shared by broadcast, reduce, scatter and gather.
namespace rooted_algorithm {
/// Binomial tree on virtual ids (rank - root) mod p; any p. On a ring this is the seeds'
/// cut-through broadcast (recursive doubling, distance p/2^i in step i).
struct Binomial {
  static constexpr const char* name = "binomial";
  template <class Topo> static constexpr TreeShape shape(const Topo& t, const char*) { return ring_shape(t.size()); }
};
/// The seeds' hypercube algorithms (masks from the highest dimension; virtual id = rank
/// XOR root); p a power of two.
struct HypercubeTree {
  static constexpr const char* name = "hypercube";
  template <class Topo>
  static constexpr TreeShape shape(const Topo& t, const char* call) { return detail::hypercube_shape(t, call); }
};
/// One phase per dimension of a mesh or torus (row, then column, ...).
struct DimensionalTree {
  static constexpr const char* name = "dimensional";
  template <product_topology Topo> static constexpr TreeShape shape(const Topo& t, const char*) { return topology_shape(t); }
};
/// Along the ring: store-and-forward both ways (broadcast, reduce) or a pipeline (scatter,
/// gather). Any p.
struct Ring {
  static constexpr const char* name = "ring";
};
/// The cheapest for the communicator's topology, cost model, size and root
/// (cost/selection.hpp).
struct Default {
  static constexpr const char* name = "default";
};
inline constexpr Binomial binomial{};
inline constexpr HypercubeTree hypercube{};
inline constexpr DimensionalTree dimensional{};
inline constexpr Ring ring{};
inline constexpr Default automatic{};
} // namespace rooted_algorithm

// How the cost layer builds the shared algorithms (cost/selection.hpp) -------------------
namespace detail {
/// The schedules of rooted collective C (specialised in each one's header):
/// tree(p, shape, problem) and ring(p, problem).
template <Collective C>
struct rooted_schedules;
} // namespace detail

template <Collective C>
  requires detail::rooted_collective<C>
struct algorithm_cost<C, rooted_algorithm::Binomial> : detail::CostBase<detail::Needs::nothing> {
  template <class T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return detail::rooted_schedules<C>::tree(t.size(), ring_shape(t.size()), pr); }
};
template <Collective C>
  requires detail::rooted_collective<C>
struct algorithm_cost<C, rooted_algorithm::HypercubeTree> : detail::CostBase<detail::Needs::power_of_two> {
  template <class T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return detail::rooted_schedules<C>::tree(t.size(), bits_shape(t.size()), pr); }
};
template <Collective C>
  requires detail::rooted_collective<C>
struct algorithm_cost<C, rooted_algorithm::DimensionalTree> : detail::CostBase<detail::Needs::product> {
  template <class T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return detail::rooted_schedules<C>::tree(t.size(), topology_shape(t), pr); }
};
template <Collective C>
  requires detail::rooted_collective<C>
struct algorithm_cost<C, rooted_algorithm::Ring> : detail::CostBase<detail::Needs::nothing> {
  template <class T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return detail::rooted_schedules<C>::ring(t.size(), pr); }
};

} // namespace collectives
