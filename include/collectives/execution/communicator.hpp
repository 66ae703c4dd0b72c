#pragma once
// Communicator: an endpoint of some transport bound to a topology of the same size.

#include <collectives/cost/choice_cache.hpp>
#include <collectives/cost/model.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/topology/torus.hpp>
#include <collectives/transport/concepts.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace collectives {

/// Binds endpoint `E` (threads, MPI, recording, a user's own) to topology `T`, and holds
/// the cost model (default_cost_model unless given one, e.g. from calibrate()) by which a
/// collective called without an algorithm picks the cheapest one for the topology
/// (cost/selection.hpp). The sizes must agree: checked at compile time when both are
/// static, else the constructor throws std::invalid_argument naming both sizes. The model
/// must be the same on every rank (so that every rank picks the same algorithm).
template <endpoint E, topology T>
class Communicator {
public:
  using endpoint_type = E;
  using topology_type = T;

  /// `word_bytes`: the size of the model's word (message sizes are converted to words).
  constexpr Communicator(E& ep, T topo, const CostModel& model = default_cost_model, std::size_t word_bytes = 8)
    : ep_(&ep), topo_(topo)
  {
    set_cost_model(model, word_bytes);
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

  /// The model default algorithms are selected with.
  constexpr const CostModel& cost_model() const { return model_; }
  /// Replaces the model (and forgets the picks made with the old one). Requirements: a
  /// valid model (CostModel::validated) and word_bytes >= 1; std::invalid_argument otherwise.
  constexpr void set_cost_model(const CostModel& model, std::size_t word_bytes = 8)
  {
    model.validated();
    detail::require(word_bytes >= 1, "collectives::Communicator: word_bytes must be at least 1");
    model_ = model;
    word_bytes_ = word_bytes;
    choices_.clear();
  }
  /// `bytes` in the model's words.
  constexpr double words(std::size_t bytes) const
  {
    return static_cast<double>(bytes) / static_cast<double>(word_bytes_);
  }
  /// The default algorithms picked so far (detail: used by the collectives).
  constexpr detail::ChoiceCache& choices() const { return choices_; }

private:
  E* ep_;
  T topo_;
  CostModel model_{};
  std::size_t word_bytes_ = 8;
  mutable detail::ChoiceCache choices_{};
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
