#pragma once
// Circular q-shift on a ring (seed 001, "CIRCULAR SHIFT — Ring: straightforward"): every
// block travels min(q, p - q) hops the shorter way round, one hop per step, all ranks
// passing their current block to the same neighbour at once. Any p, any topology (the ring
// is the rank order 0, 1, ..., p-1, which is a ring of links on Ring<P>).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/shift/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Ring q-shift: min(q, p - q) steps of one hop each, towards rank + 1 when q <= p/2, else
/// towards rank - 1. One scratch block. Cost (one-port, SF or CT): (t_s + t_w m) min(q, p - q),
/// at most (t_s + t_w m) floor(p/2).
class ShiftRingSchedule {
public:
  /// Shift by q (any integer; reduced mod p) on topo.
  constexpr ShiftRingSchedule(std::size_t p, std::ptrdiff_t q) : p_(p), q_(detail::reduce_shift(q, p_)) {}
  constexpr std::size_t size() const { return p_; }
  /// q mod p.
  constexpr std::size_t shift() const { return q_; }
  /// True when blocks travel towards rank + 1.
  constexpr bool forward() const { return q_ <= size() - q_; }
  /// Hops every block makes: min(q, p - q).
  constexpr std::size_t hops() const { return forward() ? q_ : size() - q_; }
  constexpr std::size_t num_steps() const { return hops() > 0 ? hops() : 1; }
  constexpr std::size_t scratch_blocks() const { return hops() >= 2 ? 1 : 0; }
  constexpr ShiftOp operation() const { return {size(), q_}; }
  /// Every rank does rank 0's step, translated (rank + r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::cyclic(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t n = hops();
    if (n == 0) {
      detail::shift_copy_own(v);
      return;
    }
    const std::size_t p = size();
    const std::size_t up = detail::add_mod(r, 1, p), down = detail::sub_mod(r, 1, p);
    v.send({forward() ? up : down, detail::shift_slot_uniform(step, n)});
    v.recv({forward() ? down : up, detail::shift_slot_uniform(step + 1, n)});
  }

  friend constexpr bool operator==(const ShiftRingSchedule&, const ShiftRingSchedule&) = default;

private:
  std::size_t p_;
  std::size_t q_;
};

namespace shift_algorithm {
/// Hop by hop round the ring, the shorter way: min(q, p - q) steps; any p.
struct Ring : AlgorithmBase<Collective::shift> {
  static constexpr const char* name = "ring";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return ShiftRingSchedule(t.size(), pr.q); }
};
inline constexpr Ring ring{};
} // namespace shift_algorithm

} // namespace collectives
