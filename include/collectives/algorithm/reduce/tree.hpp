#pragma once
// Reduce down a tree (the broadcast trees run backwards, combining; SINGLE_NODE_ACC on a
// hypercube). Partial results combine lower ranks on the left. A tree rooted anywhere but
// rank 0 would wrap rank order round the ring, so for an operator not known to be
// commutative the tree is rooted at rank 0 and the result then goes to the root in one
// more step (MPICH does the same); commutative ones use the root's own tree.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/algorithm/reduce/partials.hpp>

#include <cstddef>
#include <utility>

namespace collectives {

/// The broadcast tree run backwards, combining: every node folds in its children's
/// partials, then hands its own up. Step 0 loads the contribution into the partial; or,
/// with `fold_late` (the input stays readable and apart from the output until step 1),
/// a node's nearest child, which every node with children receives in step 1, lands in
/// the partial as it is and the contribution is folded in on its left there: one pass
/// over the message less. Leaves send their contribution as it is.
/// Cost: (t_s + t_w m) ceil(log p) (+1 step for a non-commutative operator and root != 0).
class ReduceTreeSchedule {
public:
  template <shape_source Shape>
  constexpr ReduceTreeSchedule(std::size_t p, Shape&& shape, std::size_t root, bool commutative,
                               std::size_t blocks = 1, Partials partials = Partials::scratch, bool fold_late = false)
    : p_(p), shape_(shape_from(std::forward<Shape>(shape))), root_(root), tree_root_(commutative ? root : 0), commutative_(commutative),
      blocks_(blocks), partials_(partials), fold_late_(fold_late && partials != Partials::in_place && p > 1) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return 1 + shape_.num_steps() + (tree_root_ != root_ ? 1 : 0); }
  constexpr std::size_t scratch_blocks() const { return partials_ == Partials::scratch ? blocks_ : 0; }
  constexpr ReduceOp operation() const { return {p_, root_, blocks_, commutative_}; }
  /// Step 0: the nodes with children load their partials (one class, non_leaves(); none
  /// in place or with fold_late); then the broadcast tree's steps backwards
  /// (tree/shape.hpp); a last step between the two roots.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    const RankGroup g = shape_group(shape_);
    const std::size_t total = shape_.num_steps();
    if (step == 0) return partials_ == Partials::in_place || fold_late_ ? Symmetry::in(g) : Symmetry::in(g).with(non_leaves(g));
    if (step <= total) return tree_symmetry(shape_, tree_root_, total - step, true);
    return Symmetry::in(g).with_rank(tree_root_).with_rank(root_);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const Pattern all_in = contiguous(Buffer::input, 0, blocks_);
    const Pattern partial = contiguous(held(r), 0, blocks_);
    // A leaf has nothing to fold in: it sends its contribution as it is, without
    // copying it into a partial first (half the ranks of a binomial tree are leaves).
    // In place, the partial is the contribution already.
    const bool leaf = partials_ != Partials::in_place && is_leaf(r);
    if (step == 0) {
      if (partials_ != Partials::in_place && !leaf && !fold_late_) v.local({all_in, partial});
      return;
    }
    const std::size_t total = shape_.num_steps();
    if (step <= total) {
      const TreeRole role = tree_role(shape_, tree_root_, r, total - step);
      // Children hold higher relative coordinates: with the tree rooted at rank 0 (or a
      // commutative operator) that means higher ranks, so they go on the right.
      if (role.sends) {
        if (fold_late_ && step == 1) {
          // The nearest child (distance 1 in the last ring, the first in reduce order).
          v.recv({role.peer, partial, Combine::copy});
          v.local({all_in, partial, Combine::left});
        } else {
          v.recv({role.peer, partial, Combine::right});
        }
      }
      if (role.receives) v.send({role.peer, leaf ? all_in : partial});
      return;
    }
    if (r == tree_root_) v.send({root_, partial});
    if (r == root_) v.recv({tree_root_, contiguous(Buffer::output, 0, blocks_)});
  }

  friend constexpr bool operator==(const ReduceTreeSchedule&, const ReduceTreeSchedule&) = default;

private:
  /// The last ring longer than one (shape_.ndims if none: p = 1). A node whose coordinate
  /// along it is the root's joins the tree in an earlier ring (or is the root) and sends as
  /// the root of that last ring's tree; the others join in it.
  constexpr std::size_t last_ring() const
  {
    for (std::size_t k = shape_.ndims; k-- > 0;)
      if (shape_.extent[k] > 1) return k;
    return shape_.ndims;
  }
  /// Whether r has no children in the tree: its coordinate v along the last ring, relative
  /// to the root's, is not 0, and it receives there from distance lowbit(v) and sends at
  /// no smaller distance that stays inside the ring (v odd, or the ring's last node).
  /// O(dimensions of the shape).
  constexpr bool is_leaf(std::size_t r) const
  {
    const std::size_t k = last_ring();
    if (k == shape_.ndims) return false; // p = 1: the root
    const std::size_t z = shape_.extent[k];
    const std::size_t v = (shape_.coord(r, k) + z - shape_.coord(tree_root_, k)) % z;
    return v != 0 && (v % 2 == 1 || v + 1 == z);
  }
  /// The nodes with children (not is_leaf), as a class of g: the tree's root translated by
  /// anything along the earlier rings, and by 0, 2, 4, ... along the last ring (v even and
  /// below z - 1: floor(z / 2) of them, z >= 2). Every one loads its partial in step 0.
  constexpr RankClass non_leaves(const RankGroup& g) const
  {
    const std::size_t last = last_ring();
    return class_along(shape_, g, tree_root_, shape_.ndims, [&](std::size_t k) {
      const std::size_t z = shape_.extent[k];
      return std::pair{k == last ? std::size_t{2} : std::size_t{1}, k == last ? z / 2 : z};
    });
  }
  constexpr Buffer held(std::size_t r) const
  {
    return partials_ != Partials::scratch || (r == tree_root_ && tree_root_ == root_) ? Buffer::output : Buffer::scratch;
  }
  std::size_t p_;
  TreeShape shape_;
  std::size_t root_;
  std::size_t tree_root_;
  bool commutative_;
  std::size_t blocks_;
  Partials partials_;
  bool fold_late_;
};

namespace detail {
/// A reduce along a tree of shape Shape (tree/shape.hpp).
template <class Shape>
struct ReduceTree : AlgorithmBase<Collective::reduce> {
  static constexpr const char* name = Shape::name;
  static constexpr Needs needs = Shape::needs;
  /// In place, the contribution is read in step 0 only (out of place it is read in step
  /// 1, so the front end hands it over apart from the output).
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ReduceTreeSchedule(t.size(), [&] { return Shape::of(t); }, pr.root, pr.commutative, 1, Partials::scratch,
                              !pr.in_place);
  }
};
} // namespace detail

namespace reduce_algorithm {
/// Binomial tree on virtual ids (rank - root) mod p; any p: the dual of the binomial
/// broadcast.
using Binomial = detail::ReduceTree<detail::BinomialShape>;
/// SINGLE_NODE_ACC: the seeds' hypercube reduction; p a power of two.
using HypercubeTree = detail::ReduceTree<detail::HypercubeShape>;
/// One phase per dimension of a mesh, torus or hypercube.
using DimensionalTree = detail::ReduceTree<detail::DimensionalShape>;
inline constexpr Binomial binomial{};
inline constexpr HypercubeTree hypercube{};
inline constexpr DimensionalTree dimensional{};
} // namespace reduce_algorithm

} // namespace collectives
