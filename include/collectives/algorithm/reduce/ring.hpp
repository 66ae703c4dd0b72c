#pragma once
// Reduce along the ring: the store-and-forward ring broadcast run backwards.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/algorithm/reduce/partials.hpp>

#include <cstddef>

namespace collectives {

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
  /// After step 0 (the loads), the upper chain hands its partial on in every chain step,
  /// and rank 0 sends the result to the root in the last (schedule.hpp).
  constexpr std::size_t blocks_every_step() const { return chain_steps() > 0 ? blocks_ : 0; }
  constexpr std::size_t first_message_step() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return 2 * blocks_; }
  constexpr ReduceOp operation() const { return {p_, root_, blocks_, commutative_}; }
  /// Step 0: every rank loads its partial; chain steps involve the ranks s and s + 1
  /// places either way from the tree's root only; the last step, the two roots.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    const std::size_t p = p_;
    const RankGroup g = RankGroup::cyclic(p);
    if (step == 0) return Symmetry::uniform(g);
    if (step > chain_steps()) return Symmetry::in(g).with_rank(tree_root_).with_rank(root_);
    const std::size_t s = (chain_steps() - step) % p, r = tree_root_;
    const std::size_t a = (r + s) % p, b = (a + 1) % p, c = (r + p - s) % p, d = (c + p - 1) % p;
    if (a != b && a != c && a != d && b != c && b != d && c != d) // (most steps: in one expression)
      return Symmetry::of(g, RankClass::only(a), RankClass::only(b), RankClass::only(c), RankClass::only(d));
    return Symmetry::in(g).with_rank(a).with_rank(b).with_rank(c).with_rank(d);
  }

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

  friend constexpr bool operator==(const ReduceRingSchedule&, const ReduceRingSchedule&) = default;

private:
  std::size_t p_;
  std::size_t root_;
  std::size_t tree_root_;
  bool commutative_;
  std::size_t blocks_;
};

namespace reduce_algorithm {
/// Along the ring, both ways towards the root (the dual of the ring broadcast); any p.
struct Ring : AlgorithmBase<Collective::reduce> {
  static constexpr const char* name = "ring";
  /// The contribution is read in step 0 only.
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ReduceRingSchedule(t.size(), pr.root, pr.commutative);
  }
};
inline constexpr Ring ring{};
} // namespace reduce_algorithm

} // namespace collectives
