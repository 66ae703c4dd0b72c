#pragma once
// Broadcast schedules. All work in place on the output buffer (root's output holds the
// data; every other output receives it), cut into `blocks` blocks.

#include <collectives/algorithm/allgather/schedules.hpp>
#include <collectives/algorithm/scatter/schedules.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/torus.hpp>

#include <cstddef>

namespace collectives {

/// A binomial tree along each ring of `shape` (see tree/shape.hpp): ring_shape is the
/// seeds' cut-through ring broadcast (and, for any p, the binomial tree with virtual ids),
/// bits_shape GENERAL_ONE_TO_ALL_BC on a hypercube, topology_shape the mesh/torus
/// broadcast phase by phase. Cost: (t_s + t_w m) ceil(log p) plus hops.
class BroadcastTreeSchedule {
public:
  constexpr BroadcastTreeSchedule(std::size_t p, TreeShape shape, std::size_t root, std::size_t blocks = 1)
    : p_(p), shape_(shape), root_(root), blocks_(blocks) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return shape_.num_steps() > 0 ? shape_.num_steps() : 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr BroadcastOp operation() const { return {p_, root_, blocks_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const TreeRole role = tree_role(shape_, root_, r, step);
    const Pattern all = contiguous(Buffer::output, 0, blocks_);
    if (role.sends) v.send({role.peer, all});
    if (role.receives) v.recv({role.peer, all});
  }

private:
  std::size_t p_;
  TreeShape shape_;
  std::size_t root_;
  std::size_t blocks_;
};

/// Store-and-forward ring broadcast: the root sends both ways and each rank passes the
/// data on, floor(p/2) steps. Cost: (t_s + t_w m) floor(p/2).
class BroadcastRingSchedule {
public:
  constexpr BroadcastRingSchedule(std::size_t p, std::size_t root, std::size_t blocks = 1)
    : p_(p), root_(root), blocks_(blocks) {}
  constexpr std::size_t size() const { return p_; }
  /// Ranks reached going up (root + 1 ..) and going down.
  constexpr std::size_t up() const { return p_ / 2; }
  constexpr std::size_t down() const { return p_ > 0 ? (p_ - 1) / 2 : 0; }
  constexpr std::size_t num_steps() const { return up() > 0 ? up() : 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr BroadcastOp operation() const { return {p_, root_, blocks_}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (p_ == 1) return;
    const std::size_t rel = (r + p_ - root_) % p_;
    const Pattern all = contiguous(Buffer::output, 0, blocks_);
    const std::size_t next = (r + 1) % p_, prev = (r + p_ - 1) % p_;
    // Going up: relative ranks 0..up() in order; going down: 0, p-1, ..., p-down().
    if (rel == step && step + 1 <= up()) v.send({next, all});
    if (rel == step + 1 && rel <= up()) v.recv({prev, all});
    const std::size_t drel = (p_ - rel) % p_; // distance going down
    if (drel == step && step + 1 <= down()) v.send({prev, all});
    if (drel == step + 1 && drel <= down() && rel > up()) v.recv({next, all});
  }

private:
  std::size_t p_;
  std::size_t root_;
  std::size_t blocks_;
};

/// Long messages (the seeds' message splitting, MPICH above ~12 KiB): scatter p blocks by
/// the binomial tree, then an all-gather round the ring. Cost: about
/// 2 (t_s log p + t_w m) for the scatter-then-all-to-all-broadcast on a hypercube.
constexpr auto broadcast_scatter_allgather_schedule(std::size_t p, std::size_t root)
{
  return Concat(ScatterTreeSchedule(p, ring_shape(p), root, true), AllgatherRingSchedule<Ring<>>(Ring<>{p}, true),
                BroadcastOp{p, root, p});
}

} // namespace collectives
