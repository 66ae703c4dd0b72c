#pragma once
// Scatter schedules: block j of the root's input reaches rank j's output. `in_place`: the
// root's blocks are its output blocks and every rank's block lands in its output block r
// (the first half of the long-message broadcast). Otherwise blocks in transit wait in
// scratch at their global index, and only block r is written to the output.

#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>

#include <cstddef>

namespace collectives {

/// Binomial tree along each ring of `shape`, each node handing down the super-block of its
/// subtree: on a hypercube (bits_shape) the message halves each step; on a mesh
/// (topology_shape) first along the root's column then along every row.
/// Cost: t_s log p + t_w m (p - 1) on a hypercube.
class ScatterTreeSchedule {
public:
  constexpr ScatterTreeSchedule(std::size_t p, TreeShape shape, std::size_t root, bool in_place = false)
    : p_(p), shape_(shape), root_(root), in_place_(in_place) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return shape_.num_steps() > 0 ? shape_.num_steps() : 1; }
  constexpr std::size_t scratch_blocks() const { return in_place_ ? 0 : p_; }
  constexpr ScatterOp operation() const { return {p_, root_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const TreeRole role = tree_role(shape_, root_, r, step);
    const Buffer held = in_place_ ? Buffer::output : Buffer::scratch;
    const Buffer from = r == root_ && !in_place_ ? Buffer::input : held;
    if (role.sends) v.send({role.peer, role.blocks(from)});
    if (role.receives) v.recv({role.peer, role.blocks(held)});
    if (!in_place_ && step + 1 == num_steps())
      v.local({contiguous(r == root_ ? Buffer::input : Buffer::scratch, r, 1), contiguous(Buffer::output, 0, 1)});
  }

private:
  std::size_t p_;
  TreeShape shape_;
  std::size_t root_;
  bool in_place_;
};

/// Pipeline round the ring: in step e the root sends the block for the rank p - e places
/// up, and every rank passes on the block it got in the step before, so all blocks arrive
/// in step p - 1. Any p. Cost: (t_s + t_w m)(p - 1).
class ScatterRingSchedule {
public:
  constexpr ScatterRingSchedule(std::size_t p, std::size_t root) : p_(p), root_(root) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return p_ > 1 ? p_ - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return 2; }
  constexpr ScatterOp operation() const { return {p_, root_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = p_;
    const std::size_t d = (r + p - root_) % p; // distance from the root
    const Pattern out = contiguous(Buffer::output, 0, 1);
    if (d == 0 && step == 0) v.local({contiguous(Buffer::input, r, 1), out});
    if (p == 1) return;
    const std::size_t e = step + 1;
    const std::size_t next = (r + 1) % p, prev = (r + p - 1) % p;
    if (d == 0) v.send({next, contiguous(Buffer::input, (root_ + p - e) % p, 1)});
    // Rank d receives in steps d..p-1 the block for distance p - 1 - e + d.
    if (d >= 1 && e >= d) {
      const bool mine = e == p - 1;
      v.recv({prev, mine ? out : contiguous(Buffer::scratch, e % 2, 1)});
    }
    // ... and passes on in step e what it got in step e - 1 (unless that was its own).
    if (d >= 1 && e >= d + 1 && e - 1 < p - 1) v.send({next, contiguous(Buffer::scratch, (e - 1) % 2, 1)});
  }

private:
  std::size_t p_;
  std::size_t root_;
};

} // namespace collectives
