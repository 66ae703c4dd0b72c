#pragma once
// All-reduce schedules. The power-of-two ones work in place on the output buffer over
// virtual ranks and are wrapped in Folded for any p; the ring one is a reduce-scatter
// followed by an all-gather, for commutative operators.

#include <collectives/algorithm/allgather/schedules.hpp>
#include <collectives/algorithm/broadcast/schedules.hpp>
#include <collectives/algorithm/reduce/schedules.hpp>
#include <collectives/algorithm/reduce_scatter/schedules.hpp>
#include <collectives/algorithm/requirements.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/fold.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/topology/torus.hpp>

#include <cstddef>

namespace collectives {

/// Recursive doubling over p' = 2^d virtual ranks, in place: in step i exchange the whole
/// vector with rank XOR 2^i and combine, lower ranks on the left (the all-to-all broadcast
/// pattern of the seeds with combine instead of concatenate). Every rank computes the same
/// tree, so floating-point results are bit-identical on all ranks.
/// Cost: (t_s + t_w m) log p.
class AllreduceDoublingCore {
public:
  constexpr AllreduceDoublingCore(std::size_t p, std::size_t blocks) : p_(p), blocks_(blocks) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return p_ > 1 ? detail::log2_exact(p_) : 0; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllreduceOp operation() const { return {p_, blocks_, false}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t partner = r ^ (std::size_t{1} << step);
    const Pattern all = contiguous(Buffer::output, 0, blocks_);
    v.send({partner, all});
    v.recv({partner, all, partner < r ? Combine::left : Combine::right});
  }

private:
  std::size_t p_;
  std::size_t blocks_;
};

/// Rabenseifner over p' = 2^d virtual ranks, in place, the vector cut into p' blocks:
/// reduce-scatter by recursive halving (dimension 0 first), then all-gather by recursive
/// doubling (the reverse order). Cost: 2 t_s log p + 2 t_w m (p - 1)/p.
class AllreduceRabenseifnerCore {
public:
  constexpr explicit AllreduceRabenseifnerCore(std::size_t p) : p_(p) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t dims() const { return p_ > 1 ? detail::log2_exact(p_) : 0; }
  constexpr std::size_t num_steps() const { return 2 * dims(); }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllreduceOp operation() const { return {p_, p_, false}; }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (step < dims()) {
      const std::size_t bit = std::size_t{1} << step;
      const std::size_t partner = r ^ bit;
      const std::size_t low = r & (bit - 1);
      const std::size_t count = p_ / (bit << 1);
      v.send({partner, strided(Buffer::output, low | (partner & bit), count, 1, bit << 1)});
      v.recv({partner, strided(Buffer::output, low | (r & bit), count, 1, bit << 1),
              partner < r ? Combine::left : Combine::right});
    } else {
      const std::size_t i = 2 * dims() - 1 - step; // dimension, highest first
      const std::size_t span = std::size_t{2} << i;
      const std::size_t partner = r ^ (std::size_t{1} << i);
      const std::size_t count = p_ / span;
      v.send({partner, strided(Buffer::output, r & (span - 1), count, 1, span)});
      v.recv({partner, strided(Buffer::output, partner & (span - 1), count, 1, span)});
    }
  }

private:
  std::size_t p_;
};

/// Recursive doubling for any p (folded onto the largest power of two).
template <topology T>
constexpr auto allreduce_doubling_schedule(const T& topo, bool in_place, bool commutative)
{
  const std::size_t p = topo.size();
  return Folded<AllreduceDoublingCore, AllreduceOp>(p, AllreduceDoublingCore(pow2_floor(p), 1),
                                                    AllreduceOp{p, 1, commutative, in_place}, 1,
                                                    in_place ? Buffer::output : Buffer::input);
}

/// Rabenseifner for any p (folded); the vector is cut into pow2_floor(p) blocks.
template <topology T>
constexpr auto allreduce_rabenseifner_schedule(const T& topo, bool in_place, bool commutative)
{
  const std::size_t p = topo.size();
  const std::size_t q = pow2_floor(p);
  return Folded<AllreduceRabenseifnerCore, AllreduceOp>(p, AllreduceRabenseifnerCore(q),
                                                        AllreduceOp{p, q, commutative, in_place}, q,
                                                        in_place ? Buffer::output : Buffer::input);
}

/// Ring all-reduce: ALL_TO_ALL_RED_RING then ALL_TO_ALL_BC_RING in place, the vector cut
/// into p blocks; needs a commutative operator. Not in place (the reduce-scatter reads
/// contributions from the input). Cost: 2 (p - 1)(t_s + t_w m / p).
template <topology T>
constexpr auto allreduce_ring_schedule(const T& topo)
{
  const std::size_t p = topo.size();
  return Concat(ReduceScatterRingSchedule<T>(topo, ResultSlot::own), AllgatherRingSchedule<T>(topo, true),
                AllreduceOp{p, p, true, false});
}

/// Reduce to rank 0 by the binomial tree (partials in the output), then broadcast from
/// rank 0 by the same tree. Any p, any operator. Cost: 2 (t_s + t_w m) ceil(log p).
constexpr auto allreduce_reduce_broadcast_schedule(std::size_t p, bool in_place, bool commutative)
{
  return Concat(ReduceTreeSchedule(p, ring_shape(p), 0, commutative, 1, in_place ? Partials::in_place : Partials::output),
                BroadcastTreeSchedule(p, ring_shape(p), 0), AllreduceOp{p, 1, commutative, in_place});
}

} // namespace collectives
