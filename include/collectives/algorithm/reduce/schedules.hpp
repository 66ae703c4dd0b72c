#pragma once
// Reduce schedules: the duals of the broadcast ones (SINGLE_NODE_ACC on a hypercube), and
// reduce-scatter + gather for long vectors. Partial results combine lower ranks on the
// left. A tree rooted anywhere but rank 0 would wrap rank order round the ring, so for an
// operator not known to be commutative the tree is rooted at rank 0 and the result then
// goes to the root in one more step (MPICH does the same); commutative ones use the
// root's own tree.

#include <collectives/algorithm/gather/schedules.hpp>
#include <collectives/algorithm/reduce_scatter/schedules.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/torus.hpp>

#include <cstddef>

namespace collectives {

/// Where a reduction keeps its partial results.
enum class Partials : unsigned char {
  scratch,   ///< in scratch on every rank but the root (the output is the root's only)
  output,    ///< in the output on every rank (loaded from the input first)
  in_place,  ///< in the output, which already holds the contributions
};

/// The broadcast tree run backwards, combining: every node folds in its children's
/// partials, then hands its own up. Step 0 loads the contribution into the partial.
/// Cost: (t_s + t_w m) ceil(log p) (+1 step for a non-commutative operator and root != 0).
class ReduceTreeSchedule {
public:
  constexpr ReduceTreeSchedule(std::size_t p, TreeShape shape, std::size_t root, bool commutative,
                               std::size_t blocks = 1, Partials partials = Partials::scratch)
    : p_(p), shape_(shape), root_(root), tree_root_(commutative ? root : 0), commutative_(commutative),
      blocks_(blocks), partials_(partials) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return 1 + shape_.num_steps() + (tree_root_ != root_ ? 1 : 0); }
  constexpr std::size_t scratch_blocks() const { return partials_ == Partials::scratch ? blocks_ : 0; }
  constexpr ReduceOp operation() const { return {p_, root_, blocks_, commutative_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const Pattern all_in = contiguous(Buffer::input, 0, blocks_);
    const Pattern partial = contiguous(held(r), 0, blocks_);
    if (step == 0) {
      if (partials_ != Partials::in_place) v.local({all_in, partial});
      return;
    }
    const std::size_t total = shape_.num_steps();
    if (step <= total) {
      const TreeRole role = tree_role(shape_, tree_root_, r, total - step);
      // Children hold higher relative coordinates: with the tree rooted at rank 0 (or a
      // commutative operator) that means higher ranks, so they go on the right.
      if (role.sends) v.recv({role.peer, partial, Combine::right});
      if (role.receives) v.send({role.peer, partial});
      return;
    }
    if (r == tree_root_) v.send({root_, partial});
    if (r == root_) v.recv({tree_root_, contiguous(Buffer::output, 0, blocks_)});
  }

private:
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
};

/// The dual of the store-and-forward ring broadcast: two chains fold towards the root,
/// floor(p/2) steps. The chain arriving from below the root is folded in last, after the
/// one from above, so rank order holds when the chains are rooted at rank 0.
/// Cost: (t_s + t_w m) floor(p/2) (+1 step as for the tree).
class ReduceRingSchedule {
public:
  constexpr ReduceRingSchedule(std::size_t p, std::size_t root, bool commutative, std::size_t blocks = 1)
    : p_(p), root_(root), tree_root_(commutative ? root : 0), commutative_(commutative), blocks_(blocks) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t up() const { return p_ / 2; }
  constexpr std::size_t down() const { return p_ > 0 ? (p_ - 1) / 2 : 0; }
  constexpr std::size_t chain_steps() const { return up() > 0 ? up() : 0; }
  constexpr std::size_t num_steps() const { return 1 + chain_steps() + (tree_root_ != root_ ? 1 : 0); }
  constexpr std::size_t scratch_blocks() const { return 2 * blocks_; }
  constexpr ReduceOp operation() const { return {p_, root_, blocks_, commutative_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = p_;
    const bool at_tree_root = r == tree_root_;
    const Pattern partial = contiguous(at_tree_root && tree_root_ == root_ ? Buffer::output : Buffer::scratch, 0, blocks_);
    const Pattern staged = contiguous(Buffer::scratch, blocks_, blocks_);
    if (step == 0) {
      v.local({contiguous(Buffer::input, 0, blocks_), partial});
      return;
    }
    const std::size_t rel = (r + p - tree_root_) % p;
    const std::size_t next = (r + 1) % p, prev = (r + p - 1) % p;
    if (step <= chain_steps()) {
      const std::size_t s = chain_steps() - step; // the broadcast's step, run backwards
      // Upper chain: relative ranks up()..1 fold downwards (children are higher: right).
      if (rel == s && s + 1 <= up()) v.recv({next, partial, Combine::right});
      if (rel == s + 1 && rel <= up()) v.send({prev, partial});
      // Lower chain: relative ranks p-down()..p-1 fold upwards (children are lower: left);
      // the root stages it and folds it in after the upper chain.
      const std::size_t drel = (p - rel) % p;
      if (drel == s && s + 1 <= down()) {
        if (rel == 0) v.recv({prev, staged});
        else v.recv({prev, partial, Combine::left});
      }
      if (drel == s + 1 && drel <= down() && rel > up()) v.send({next, partial});
      if (rel == 0 && step == chain_steps() && down() > 0) v.local({staged, partial, Combine::right});
      return;
    }
    if (at_tree_root) v.send({root_, partial});
    if (r == root_) v.recv({tree_root_, contiguous(Buffer::output, 0, blocks_)});
  }

private:
  std::size_t p_;
  std::size_t root_;
  std::size_t tree_root_;
  bool commutative_;
  std::size_t blocks_;
};

/// Long vectors: reduce-scatter (recursive halving when p is a power of two, else
/// pairwise) leaves block r on rank r, then a binomial gather brings the p blocks to the
/// root. The output must hold the whole vector on every rank. Any operator.
/// Cost: about 2 t_s log p + 2 t_w m (p - 1)/p on a hypercube.
constexpr auto reduce_scatter_gather_halving(std::size_t p, std::size_t root, bool commutative)
{
  return Concat(ReduceScatterHalvingSchedule<Ring<>>(Ring<>{p}, commutative, ResultSlot::own),
                GatherTreeSchedule(p, ring_shape(p), root, true), ReduceOp{p, root, p, commutative});
}
constexpr auto reduce_scatter_gather_pairwise(std::size_t p, std::size_t root, bool commutative)
{
  return Concat(ReduceScatterPairwiseSchedule<Ring<>>(Ring<>{p}, commutative, ResultSlot::own),
                GatherTreeSchedule(p, ring_shape(p), root, true), ReduceOp{p, root, p, commutative});
}

} // namespace collectives
