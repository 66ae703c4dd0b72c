#pragma once
// The shim's topology: one type standing for every network a communicator can be given
// (the matching Ring/Mesh/Torus or Grid of a Cartesian communicator, COLLECTIVES_TOPOLOGY's
// choice, or a fully connected network), so that every algorithm is compiled once for all
// of them rather than once per topology type. It forwards each question to the topology it
// holds, so the schedules and cost estimates are those of that topology.
//
// The fully connected network is presented as one dimension of p nodes: the dimensional
// algorithms then run as their one-ring forms, while routes stay one hop (next_hop(a, b)
// = b). The cost model numbers the links of a product topology per node and dimension,
// so a node's messages to non-neighbours share one link id; under the one-port model
// (the shim's) a rank's own messages never count as contending, so this charges what the
// library's FullyConnected charges.

#include <collectives/cost/fully_connected.hpp>
#include <collectives/topology/grid.hpp>
#include <collectives/topology/hypercube.hpp>
#include <collectives/topology/torus.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <variant>

namespace collectives::pmpi {

/// A run-time choice of FullyConnected, Ring, Mesh, 3-D Torus, Hypercube or Grid;
/// satisfies collectives::product_topology.
class ShimTopology {
public:
  using Torus3 = Torus<dynamic_extent, dynamic_extent, dynamic_extent>;
  using Variant = std::variant<FullyConnected<>, Ring<>, Mesh<>, Torus3, Hypercube<>, Grid>;

  template <class T>
    requires std::constructible_from<Variant, T>
  explicit ShimTopology(T topo) : v_(std::move(topo)) {}

  const Variant& held() const noexcept { return v_; }

  /// "fully connected (6)", "ring 8", "mesh 2x4", "torus 2x2x2", "hypercube 3",
  /// "grid 3x4 (periodic: no yes)".
  std::string describe() const;

  std::size_t size() const
  {
    return std::visit([](const auto& t) { return t.size(); }, v_);
  }
  std::size_t next_hop(std::size_t a, std::size_t b) const
  {
    return std::visit([&](const auto& t) { return t.next_hop(a, b); }, v_);
  }
  std::size_t distance(std::size_t a, std::size_t b) const
  {
    return std::visit([&](const auto& t) { return t.distance(a, b); }, v_);
  }
  std::size_t ndims() const
  {
    return std::visit(
      [](const auto& t) -> std::size_t {
        if constexpr (is_fc<decltype(t)>) return 1;
        else return t.ndims();
      },
      v_);
  }
  std::size_t extent(std::size_t i) const
  {
    return std::visit(
      [&](const auto& t) -> std::size_t {
        if constexpr (is_fc<decltype(t)>) return t.size();
        else return t.extent(i);
      },
      v_);
  }
  std::size_t stride(std::size_t i) const
  {
    return std::visit(
      [&](const auto& t) -> std::size_t {
        if constexpr (is_fc<decltype(t)>) return 1;
        else return t.stride(i);
      },
      v_);
  }
  std::size_t route_dim(std::size_t k) const
  {
    return std::visit(
      [&](const auto& t) -> std::size_t {
        if constexpr (is_fc<decltype(t)>) return 0;
        else return t.route_dim(k);
      },
      v_);
  }
  std::size_t coord(std::size_t r, std::size_t d) const
  {
    return std::visit(
      [&](const auto& t) -> std::size_t {
        if constexpr (is_fc<decltype(t)>) return r;
        else return t.coord(r, d);
      },
      v_);
  }
  std::size_t shift_along(std::size_t r, std::size_t d, std::size_t k) const
  {
    return std::visit(
      [&](const auto& t) -> std::size_t {
        if constexpr (is_fc<decltype(t)>) return (r + k % t.size()) % t.size();
        else return t.shift_along(r, d, k);
      },
      v_);
  }
  friend bool operator==(const ShimTopology&, const ShimTopology&) = default;

private:
  template <class T>
  static constexpr bool is_fc = std::is_same_v<std::remove_cvref_t<T>, FullyConnected<>>;

  Variant v_;
};

} // namespace collectives::pmpi
