#pragma once
// Gather schedules: the reverse of the scatter ones. Rank r's block reaches block r of
// the root's output. `in_place`: every rank's block starts in its output block r and
// blocks in transit wait in the output (the second half of reduce-scatter + gather).

#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>

#include <cstddef>

namespace collectives {

/// The scatter tree run backwards: each node hands its subtree's super-block up.
/// Cost: t_s log p + t_w m (p - 1) on a hypercube.
class GatherTreeSchedule {
public:
  constexpr GatherTreeSchedule(std::size_t p, TreeShape shape, std::size_t root, bool in_place = false)
    : p_(p), shape_(shape), root_(root), in_place_(in_place) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return shape_.num_steps() > 0 ? shape_.num_steps() : 1; }
  constexpr std::size_t scratch_blocks() const { return in_place_ ? 0 : p_; }
  constexpr GatherOp operation() const { return {p_, root_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t total = shape_.num_steps();
    const Buffer held = in_place_ || r == root_ ? Buffer::output : Buffer::scratch;
    if (step == 0 && !in_place_)
      v.local({contiguous(Buffer::input, 0, 1), contiguous(held, r, 1)});
    if (total == 0) return;
    const TreeRole role = tree_role(shape_, root_, r, total - 1 - step);
    if (role.sends) v.recv({role.peer, role.blocks(held)});
    if (role.receives) {
      // In the first step a subtree is the rank alone, and its block is still in the input.
      const bool alone = step == 0 && !in_place_;
      v.send({role.peer, alone ? contiguous(Buffer::input, 0, 1) : role.blocks(held)});
    }
  }

private:
  std::size_t p_;
  TreeShape shape_;
  std::size_t root_;
  bool in_place_;
};

/// Pipeline round the ring towards the root: in step e the rank e places below the root
/// starts sending its block, and every rank passes on what it got in the step before.
/// Any p. Cost: (t_s + t_w m)(p - 1).
class GatherRingSchedule {
public:
  constexpr GatherRingSchedule(std::size_t p, std::size_t root) : p_(p), root_(root) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return p_ > 1 ? p_ - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 2; }
  constexpr GatherOp operation() const { return {p_, root_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    // ScatterRingSchedule run backwards in time and direction: its step e is step
    // p - 1 - e here, its "send to next" a "receive from next", its "receive from prev"
    // a "send to prev". d is the distance above the root.
    const std::size_t p = p_;
    const std::size_t d = (r + p - root_) % p;
    if (d == 0 && step == 0) v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, root_, 1)});
    if (p == 1) return;
    const std::size_t e = p - 1 - step;
    const std::size_t next = (r + 1) % p, prev = (r + p - 1) % p;
    if (d == 0) v.recv({next, contiguous(Buffer::output, (root_ + p - e) % p, 1)});
    if (d >= 1 && e >= d) {
      const bool mine = e == p - 1;
      v.send({prev, mine ? contiguous(Buffer::input, 0, 1) : contiguous(Buffer::scratch, e % 2, 1)});
    }
    if (d >= 1 && e >= d + 1) v.recv({next, contiguous(Buffer::scratch, (e - 1) % 2, 1)});
  }

private:
  std::size_t p_;
  std::size_t root_;
};

} // namespace collectives
