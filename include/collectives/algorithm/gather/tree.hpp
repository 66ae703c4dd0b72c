#pragma once
// Gather schedules: the reverse of the scatter ones. Rank r's block reaches block r of
// the root's output. `in_place`: every rank's block starts in its output block r and
// blocks in transit wait in the output (the second half of reduce-scatter + gather).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>
#include <utility>

namespace collectives {

/// The scatter tree run backwards: each node hands its subtree's super-block up.
/// Cost: t_s log p + t_w m (p - 1) on a hypercube.
class GatherTreeSchedule {
public:
  template <shape_source Shape>
  constexpr GatherTreeSchedule(std::size_t p, Shape&& shape, std::size_t root, bool in_place = false)
    : p_(p), shape_(shape_from(std::forward<Shape>(shape))), root_(root), in_place_(in_place) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return shape_.num_steps_at_least_one(); }
  constexpr std::size_t scratch_blocks() const { return in_place_ ? 0 : p_; }
  constexpr GatherOp operation() const { return {p_, root_}; }
  /// The broadcast tree's steps backwards (tree/shape.hpp); in the first step every rank
  /// also places its own block.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    const std::size_t total = shape_.num_steps();
    if (total == 0) return in_place_ ? Symmetry::in(shape_group(shape_)) : Symmetry::uniform(shape_group(shape_));
    if (!in_place_ && step == 0) return tree_symmetry_all(shape_, root_, total - 1, p_);
    return tree_symmetry(shape_, root_, total - 1 - step);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t total = shape_.num_steps();
    const Buffer held = in_place_ || r == root_ ? Buffer::output : Buffer::scratch;
    const TreeRole role = total == 0 ? TreeRole{} : tree_role(shape_, root_, r, total - 1 - step);
    // A rank that sends in the first step is a leaf: its block goes from the input, so
    // it keeps no copy.
    if (step == 0 && !in_place_ && !role.receives)
      v.local({contiguous(Buffer::input, 0, 1), contiguous(held, r, 1)});
    if (total == 0) return;
    if (role.sends) v.recv({role.peer, role.blocks(held)});
    if (role.receives) {
      // In the first step a subtree is the rank alone, and its block is still in the input.
      const bool alone = step == 0 && !in_place_;
      v.send({role.peer, alone ? contiguous(Buffer::input, 0, 1) : role.blocks(held)});
    }
  }

  friend constexpr bool operator==(const GatherTreeSchedule&, const GatherTreeSchedule&) = default;

private:
  std::size_t p_;
  TreeShape shape_;
  std::size_t root_;
  bool in_place_;
};

namespace detail {
/// A gather along a tree of shape Shape (tree/shape.hpp).
template <class Shape>
using GatherTree = RootedTree<Collective::gather, GatherTreeSchedule, Shape>;
} // namespace detail

namespace gather_algorithm {
/// Binomial tree on virtual ids (rank - root) mod p; any p. On a ring under cut-through
/// routing this is the seeds' recursive doubling (distance p/2^i in step i).
using Binomial = detail::GatherTree<detail::BinomialShape>;
/// The seeds' hypercube algorithm (masks from the highest dimension; virtual id = rank
/// XOR root); p a power of two.
using HypercubeTree = detail::GatherTree<detail::HypercubeShape>;
/// One phase per dimension of a mesh, torus or hypercube (row, then column, ...).
using DimensionalTree = detail::GatherTree<detail::DimensionalShape>;
inline constexpr Binomial binomial{};
inline constexpr HypercubeTree hypercube{};
inline constexpr DimensionalTree dimensional{};
} // namespace gather_algorithm

} // namespace collectives
