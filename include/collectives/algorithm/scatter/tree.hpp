#pragma once
// Scatter schedules: block j of the root's input reaches rank j's output. `in_place`: the
// root's blocks are its output blocks and every rank's block lands in its output block r
// (the first half of the long-message broadcast). Otherwise blocks in transit wait in
// scratch at their global index, and only block r is written to the output (a block that
// arrives alone in the last step, a leaf's own, lands there directly).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>
#include <utility>

namespace collectives {

/// Binomial tree along each ring of `shape`, each node handing down the super-block of its
/// subtree: on a hypercube (bits_shape) the message halves each step; on a mesh
/// (topology_shape) first along the root's column then along every row.
/// Cost: t_s log p + t_w m (p - 1) on a hypercube.
class ScatterTreeSchedule {
public:
  template <shape_source Shape>
  constexpr ScatterTreeSchedule(std::size_t p, Shape&& shape, std::size_t root, bool in_place = false)
    : p_(p), shape_(shape_from(std::forward<Shape>(shape))), root_(root), in_place_(in_place) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return shape_.num_steps_at_least_one(); }
  constexpr std::size_t scratch_blocks() const { return in_place_ ? 0 : p_; }
  constexpr ScatterOp operation() const { return {p_, root_}; }
  /// The tree's senders and receivers (tree/shape.hpp); in the last step every rank also
  /// copies its block out.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    if (shape_.num_steps() == 0) return Symmetry::uniform(shape_group(shape_)); // p = 1
    if (!in_place_ && step + 1 == num_steps()) return tree_symmetry_all(shape_, root_, step, p_);
    return tree_symmetry(shape_, root_, step);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const TreeRole role = tree_role(shape_, root_, r, step);
    const Buffer held = in_place_ ? Buffer::output : Buffer::scratch;
    const Buffer from = r == root_ && !in_place_ ? Buffer::input : held;
    if (role.sends) v.send({role.peer, role.blocks(from)});
    const bool last = !in_place_ && step + 1 == num_steps();
    if (role.receives) {
      const Pattern blocks = role.blocks(held);
      // A leaf's message in the last step is its own block alone: straight to the output.
      if (last && blocks.count == 1) return v.recv({role.peer, contiguous(Buffer::output, 0, 1)});
      v.recv({role.peer, blocks});
    }
    if (last)
      v.local({contiguous(r == root_ ? Buffer::input : Buffer::scratch, r, 1), contiguous(Buffer::output, 0, 1)});
  }

  friend constexpr bool operator==(const ScatterTreeSchedule&, const ScatterTreeSchedule&) = default;

private:
  std::size_t p_;
  TreeShape shape_;
  std::size_t root_;
  bool in_place_;
};

namespace detail {
/// A scatter along a tree of shape Shape (tree/shape.hpp).
template <class Shape>
using ScatterTree = RootedTree<Collective::scatter, ScatterTreeSchedule, Shape>;
} // namespace detail

namespace scatter_algorithm {
/// Binomial tree on virtual ids (rank - root) mod p; any p. On a ring under cut-through
/// routing this is the seeds' recursive doubling (distance p/2^i in step i).
using Binomial = detail::ScatterTree<detail::BinomialShape>;
/// The seeds' hypercube algorithm (masks from the highest dimension; virtual id = rank
/// XOR root); p a power of two.
using HypercubeTree = detail::ScatterTree<detail::HypercubeShape>;
/// One phase per dimension of a mesh, torus or hypercube (row, then column, ...).
using DimensionalTree = detail::ScatterTree<detail::DimensionalShape>;
inline constexpr Binomial binomial{};
inline constexpr HypercubeTree hypercube{};
inline constexpr DimensionalTree dimensional{};
} // namespace scatter_algorithm

} // namespace collectives
