#pragma once
// Broadcast down a tree: binomial (any p), the seeds' hypercube algorithm, or dimension by
// dimension on a mesh or torus.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>
#include <utility>

namespace collectives {

/// A binomial tree along each ring of `shape` (see tree/shape.hpp): ring_shape is the
/// seeds' cut-through ring broadcast (and, for any p, the binomial tree with virtual ids),
/// bits_shape GENERAL_ONE_TO_ALL_BC on a hypercube, topology_shape the mesh/torus
/// broadcast phase by phase. Cost: (t_s + t_w m) ceil(log p) plus hops.
class BroadcastTreeSchedule {
public:
  template <shape_source Shape>
  constexpr BroadcastTreeSchedule(std::size_t p, Shape&& shape, std::size_t root, std::size_t blocks = 1)
    : p_(p), shape_(shape_from(std::forward<Shape>(shape))), root_(root), blocks_(blocks) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return shape_.num_steps_at_least_one(); }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr BroadcastOp operation() const { return {p_, root_, blocks_}; }
  /// The tree's senders and receivers (tree/shape.hpp).
  constexpr Symmetry symmetry(std::size_t step) const { return tree_symmetry(shape_, root_, step, true); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const TreeRole role = tree_role(shape_, root_, r, step);
    const Pattern all = contiguous(Buffer::output, 0, blocks_);
    if (role.sends) v.send({role.peer, all});
    if (role.receives) v.recv({role.peer, all});
  }

  friend constexpr bool operator==(const BroadcastTreeSchedule&, const BroadcastTreeSchedule&) = default;

private:
  std::size_t p_;
  TreeShape shape_;
  std::size_t root_;
  std::size_t blocks_;
};

namespace detail {
/// A broadcast along a tree of shape Shape (tree/shape.hpp).
template <class Shape>
using BroadcastTree = RootedTree<Collective::broadcast, BroadcastTreeSchedule, Shape>;
} // namespace detail

namespace broadcast_algorithm {
/// Binomial tree on virtual ids (rank - root) mod p; any p. On a ring under cut-through
/// routing this is the seeds' recursive doubling (distance p/2^i in step i).
using Binomial = detail::BroadcastTree<detail::BinomialShape>;
/// The seeds' hypercube algorithm (masks from the highest dimension; virtual id = rank
/// XOR root); p a power of two.
using HypercubeTree = detail::BroadcastTree<detail::HypercubeShape>;
/// One phase per dimension of a mesh, torus or hypercube (row, then column, ...).
using DimensionalTree = detail::BroadcastTree<detail::DimensionalShape>;
inline constexpr Binomial binomial{};
inline constexpr HypercubeTree hypercube{};
inline constexpr DimensionalTree dimensional{};
} // namespace broadcast_algorithm

} // namespace collectives
