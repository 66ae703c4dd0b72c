#pragma once
// Reduce along the ring, store-and-forward: the staggered ring broadcast run backwards,
// the two chains reaching the root one step apart (ceil(p/2) steps under one-port).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/tree/ring_phase.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// The dual of BroadcastStaggeredSchedule, along each ring of `shape` in turn, fastest
/// first (ring_shape: one ring; topology_shape: every row, then the root's column). On a
/// ring of z, in ceil(z/2) steps: the chain above the root (ceil(z/2) - 1 ranks) folds
/// down to it and arrives in the phase's next-to-last step, the chain below (floor(z/2)
/// ranks) folds up and arrives in its last, so the root receives one partial per step
/// and combines x_root op above op below, which is rank order when the rings are rooted
/// at rank 0. As the other rooted reductions do, an operator not known commutative is
/// reduced at rank 0 and the result sent to the root in one more step. Step 0 loads the
/// contribution. Cost: sum over rings of ceil(z/2)(t_s + t_w m + t_h + t_r m) + t_r m
/// (+ one message from rank 0 to the root: not commutative, root != 0).
class ReduceStaggeredSchedule : public RingPhases<HalfRingSteps, false> {
public:
  constexpr ReduceStaggeredSchedule(std::size_t p, TreeShape shape, std::size_t root, bool commutative,
                                    std::size_t blocks = 1)
    : RingPhases(p, shape, root), tree_root_(commutative ? root : 0), commutative_(commutative), blocks_(blocks) {}
  constexpr std::size_t num_steps() const { return 1 + phase_steps() + (tree_root_ != root_ ? 1 : 0); }
  /// After step 0 (the loads), a partial is handed on in every step of a ring's phase, and
  /// rank 0 sends the result to the root in the last (schedule.hpp).
  constexpr std::size_t blocks_every_step() const { return phase_steps() > 0 ? blocks_ : 0; }
  constexpr std::size_t first_message_step() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return blocks_; }
  constexpr ReduceOp operation() const { return {p_, root_, blocks_, commutative_}; }
  /// Step 0: every rank loads its contribution. Step s of a ring's phase: the root (in the
  /// phase's last two steps), the chain above hands down from relative rank last - s to
  /// last - s - 1, the chain below up from distance last + 1 - s to last - s; on every ring
  /// of the phase. The last step (not commutative, root != 0): rank 0 and the root.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    // (The group only where it is returned: phase_symmetry works out its own, and the
    // compile-time select of a 512-step pipeline asks for every step's.)
    if (step == 0) return Symmetry::uniform(shape_group(shape_));
    if (step > phase_steps()) return Symmetry::in(shape_group(shape_)).with_rank(tree_root_).with_rank(root_);
    const PhaseStep at = phase_step(step - 1);
    if (at.dim >= shape_.ndims) return Symmetry::in(shape_group(shape_));
    const std::size_t z = shape_.extent[at.dim], s = at.step + 1, last = HalfRingSteps::of(z);
    const std::size_t ups = last - 1, downs = z / 2;
    const bool root = (ups >= 1 && s + 1 == last) || s == last;
    const bool above_recv = s + 2 <= last && last - s - 1 < ups; // relative rank last - s - 1 >= 1
    const bool above_send = s + 1 <= last;                         // relative rank last - s, 1 .. ups
    const bool below_recv = s + 1 <= last && last - s < downs;     // distance last - s >= 1
    const bool below_send = last + 1 - s <= downs;                 // distance last + 1 - s >= 1
    const PhaseRun runs[] = {{0, root ? 1u : 0u},
                             {last - s - 1, above_recv ? 1u : 0u},
                             {last - s, above_send ? 1u : 0u},
                             {z - (last - s), below_recv ? 1u : 0u},
                             {z - (last + 1 - s), below_send ? 1u : 0u}};
    return phase_symmetry(tree_root_, at.dim, runs);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const bool in_output = r == tree_root_ && tree_root_ == root_;
    const Pattern partial = contiguous(in_output ? Buffer::output : Buffer::scratch, 0, blocks_);
    if (step == 0) {
      v.local({contiguous(Buffer::input, 0, blocks_), partial});
      return;
    }
    if (step > phase_steps()) { // the result, from rank 0 to the root
      if (r == tree_root_) v.send({root_, partial});
      if (r == root_) v.recv({tree_root_, contiguous(Buffer::output, 0, blocks_)});
      return;
    }
    const PhaseStep at = phase_step(step - 1);
    const RingPlace ring = place(r, at.dim, tree_root_);
    if (!ring.on) return;
    const std::size_t z = ring.z, rel = ring.v;
    const std::size_t s = at.step + 1;               // 1 .. last
    const std::size_t last = HalfRingSteps::of(z);
    const std::size_t ups = last - 1, downs = z / 2; // chain lengths above and below
    const std::size_t drel = (z - rel) % z;          // distance below the root
    if (rel == 0) {
      if (ups >= 1 && s + 1 == last) v.recv({ring.up(), partial, Combine::right});
      if (s == last) v.recv({ring.down(), partial, Combine::right});
      return;
    }
    if (rel <= ups) { // above: rank rel hands its partial down in step last - rel
      if (rel < ups && s + rel + 1 == last) v.recv({ring.up(), partial, Combine::right});
      if (s + rel == last) v.send({ring.down(), partial});
      return;
    }
    // below: distance j hands its partial up in step last + 1 - j
    if (drel < downs && s + drel == last) v.recv({ring.down(), partial, Combine::left});
    if (s + drel == last + 1) v.send({ring.up(), partial});
  }

  friend constexpr bool operator==(const ReduceStaggeredSchedule&, const ReduceStaggeredSchedule&) = default;

private:
  std::size_t tree_root_;
  bool commutative_;
  std::size_t blocks_;
};

namespace reduce_algorithm {
/// Along the ring, both ways towards the root, the chains arriving one step apart (the
/// dual of broadcast's ring_staggered): ceil(p/2) steps one-port for every p; any p,
/// any operator.
struct RingStaggered : AlgorithmBase<Collective::reduce> {
  static constexpr const char* name = "ring_staggered";
  /// The contribution is read in step 0 only.
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ReduceStaggeredSchedule(t.size(), ring_shape(t.size()), pr.root, pr.commutative);
  }
};
inline constexpr RingStaggered ring_staggered{};
} // namespace reduce_algorithm

} // namespace collectives
