#pragma once
// Communicator: an endpoint of some transport bound to a topology of the same size, with
// the selection policy its collectives pick default algorithms by and the executor's
// reusable memory.

#include <collectives/cost/model.hpp>
#include <collectives/cost/policy.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/executor.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/topology/torus.hpp>
#include <collectives/transport/concepts.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace collectives {

namespace detail {
/// A topology that T::of_size(p) builds from its number of nodes.
template <class T>
concept sized_by_count = requires(std::size_t p) {
  { T::of_size(p) } -> std::convertible_to<T>;
};

/// T::of_size(p), its error naming p as the endpoint's size.
template <class T>
T topology_of_size(std::size_t p)
{
  try {
    return T::of_size(p);
  } catch (const std::invalid_argument& e) {
    throw_invalid({"collectives::Communicator: the endpoint has ", p, " ranks, which the topology cannot have (",
                   e.what(), ")"});
  }
}

/// The model an endpoint suggests for its transport (cost_model()), else the default.
template <endpoint E>
CostModel endpoint_cost_model(const E& ep)
{
  if constexpr (requires { { ep.cost_model() } -> std::convertible_to<CostModel>; }) return ep.cost_model();
  else return default_cost_model;
}
} // namespace detail

/// Binds endpoint `E` (threads, MPI, recording, a user's own) to topology `T`. A
/// collective called without an algorithm picks the cheapest for the topology under the
/// communicator's SelectionPolicy: the endpoint's own model when it suggests one
/// (cost_model()), else default_cost_model, unless the constructor or set_cost_model()
/// gives another (e.g. calibrate(ep)). The sizes must agree: checked at compile
/// time when both are static, else the constructor throws std::invalid_argument naming
/// both sizes. The model must be the same on every rank (so every rank picks the same
/// algorithm). Not thread-safe: one thread calls its collectives. Copyable: a copy uses the
/// same endpoint, topology, model and picks, and starts with empty executor memory (the
/// plans, buffers and compiled-mode schedules its calls keep are its own).
template <endpoint E, topology T>
class Communicator {
public:
  using endpoint_type = E;
  using topology_type = T;

  /// With the endpoint's suggested model (or default_cost_model).
  Communicator(E& ep, T topo) : Communicator(ep, topo, detail::endpoint_cost_model(ep)) {}

  /// `word_bytes`: the size of the model's word (message sizes are converted to words).
  Communicator(E& ep, T topo, const CostModel& model, std::size_t word_bytes = 8)
    : ep_(&ep), topo_(topo), policy_(model, word_bytes)
  {
    if constexpr (requires { E::static_size; } && static_size_v<T> != dynamic_extent)
      static_assert(E::static_size == static_size_v<T>,
                    "collectives::Communicator: the endpoint's team size differs from the topology's size");
    if (ep.size() != topo_.size())
      detail::throw_invalid({"collectives::Communicator: the transport has ", ep.size(), " ranks but the topology has ",
                             topo_.size(), " nodes"});
  }

  /// A run-time topology of the endpoint's size, T::of_size(ep.size()): Ring<> (the
  /// default), Hypercube<> (p a power of two), a torus with one run-time extent
  /// (Mesh<4>: p a multiple of 4), FullyConnected<>, or a user's topology that offers
  /// of_size. std::invalid_argument naming the endpoint's size when T cannot have it.
  /// (Mesh<> and other tori with several run-time extents need them given.)
  explicit Communicator(E& ep)
    requires(static_size_v<T> == dynamic_extent && detail::sized_by_count<T>)
    : Communicator(ep, detail::topology_of_size<T>(ep.size()))
  {
  }
  /// A static topology (Ring<8>, Mesh<2, 4>, ...): its size must be the endpoint's.
  explicit Communicator(E& ep)
    requires(static_size_v<T> != dynamic_extent && std::default_initializable<T>)
    : Communicator(ep, T{})
  {
  }
  std::size_t rank() const { return ep_->rank(); }
  std::size_t size() const { return topo_.size(); }
  constexpr const T& topology() const { return topo_; }
  E& endpoint() const { return *ep_; }

  /// The model default algorithms are selected with.
  constexpr const CostModel& cost_model() const { return policy_.model(); }
  /// Replaces the model (and forgets the picks made with the old one). Requirements: a
  /// valid model (CostModel::validated) and word_bytes >= 1; std::invalid_argument
  /// otherwise, and the old model stays.
  constexpr void set_cost_model(const CostModel& model, std::size_t word_bytes = 8)
  {
    policy_.set_model(model, word_bytes);
  }
  /// The selection policy (model, word size, remembered picks).
  constexpr SelectionPolicy& policy() const { return policy_; }
  /// `bytes` in the model's words.
  constexpr double words(std::size_t bytes) const { return policy_.words(bytes); }

  /// The executor's reusable memory (detail: used by the collectives).
  ExecContext& context() const { return context_; }
  /// Numbers a new collective call: the endpoint's own count where it keeps one (so calls
  /// made through several communicators on one endpoint stay apart), else this one's.
  std::uint64_t begin_call() const
  {
    if constexpr (requires { ep_->begin_call(); }) return ep_->begin_call();
    else return ++calls_;
  }

private:
  E* ep_;
  T topo_;
  mutable SelectionPolicy policy_;
  mutable ExecContext context_;
  mutable std::uint64_t calls_ = 0;
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
  c.context();
  c.policy();
};

} // namespace collectives
