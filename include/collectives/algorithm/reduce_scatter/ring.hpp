#pragma once
// Reduce-scatter round the ring (the seeds' ALL_TO_ALL_RED_RING).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/reduce_scatter/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// ALL_TO_ALL_RED_RING: p - 1 steps; in step e rank r passes its partial of block (r - e)
/// to r + 1, which adds its own contribution. Each partial wraps around the ring, so the
/// operator must be commutative. Any p. Out of place (in_place false) the last step's
/// message lands in the result itself, which saves copying the result out of scratch (in
/// place the result block may be the input block still being read). Cost:
/// (t_s + t_w m)(p - 1) + t_r m (p - 1) combining, + t_r m in place.
class ReduceScatterRingSchedule {
public:
  constexpr explicit ReduceScatterRingSchedule(std::size_t p, ResultSlot slot = ResultSlot::first, bool in_place = false)
    : p_(p), slot_(slot), in_place_(in_place)
  {
  }
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? size() - 1 : 1; }
  constexpr std::size_t scratch_blocks() const { return size(); }
  constexpr ReduceScatterOp operation() const { return {size(), true}; }
  /// Every rank does rank 0's step, translated (rank + r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::cyclic(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    const Pattern result = contiguous(Buffer::output, slot_ == ResultSlot::first ? 0 : r, 1);
    if (p == 1) {
      v.local({contiguous(Buffer::input, 0, 1), result});
      return;
    }
    const std::size_t e = step + 1;
    const std::size_t out_block = (r + p - e) % p;
    const std::size_t in_block = (r + 2 * p - e - 1) % p;
    v.send({(r + 1) % p, contiguous(e == 1 ? Buffer::input : Buffer::scratch, out_block, 1)});
    // In the last step in_block is r: the partial completed here is this rank's result.
    const bool direct = e == p - 1 && !in_place_;
    const Pattern partial = direct ? result : contiguous(Buffer::scratch, in_block, 1);
    v.recv({(r + p - 1) % p, partial});
    v.local({contiguous(Buffer::input, in_block, 1), partial, Combine::right});
    if (e == p - 1 && !direct) v.local({contiguous(Buffer::scratch, r, 1), result});
  }

  friend constexpr bool operator==(const ReduceScatterRingSchedule&, const ReduceScatterRingSchedule&) = default;

private:
  std::size_t p_;
  ResultSlot slot_;
  bool in_place_;
};

namespace reduce_scatter_algorithm {
/// ALL_TO_ALL_RED_RING; any p; commutative operators only.
struct Ring : AlgorithmBase<Collective::reduce_scatter> {
  static constexpr const char* name = "ring";
  /// The result (output block 0) is written last, after every read of the input.
  static constexpr bool input_may_alias_output = true;
  static constexpr Needs needs{.commutative = true};
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ReduceScatterRingSchedule(t.size(), ResultSlot::first, pr.in_place);
  }
};
inline constexpr Ring ring{};
} // namespace reduce_scatter_algorithm

} // namespace collectives
