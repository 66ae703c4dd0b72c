#pragma once
// Reduce-scatter by recursive halving (the seeds' ALL_TO_ALL_RED_HCUBE).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/reduce_scatter/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/detail/power_of_two.hpp>

#include <cstddef>

namespace collectives {

/// ALL_TO_ALL_RED_HCUBE: recursive halving, log p steps, dimension 0 first (so each partial
/// combines a contiguous range of ranks, in order), p/2, p/4, ... blocks per step. The last
/// step's block lands in the result and the partial joins it there (combined on receipt),
/// instead of landing in the partial, which is then copied out; in place at p = 2 (the
/// result is input block 0, which that step still sends or folds, or with ResultSlot::own
/// input block r, which it folds) it lands in scratch.
/// p a power of two. Cost: t_s log p + t_w m (p - 1) (+ combining).
class ReduceScatterHalvingSchedule {
public:
  constexpr explicit ReduceScatterHalvingSchedule(std::size_t p, bool commutative = false,
                                                  ResultSlot slot = ResultSlot::first, bool in_place = false)
    : p_(p), commutative_(commutative), slot_(slot), in_place_(in_place)
  {
    detail::require_power_of_two_ranks(p_, "collectives::reduce_scatter(recursive_halving)");
  }
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? detail::log2_exact(size()) : 1; }
  constexpr std::size_t scratch_blocks() const { return size(); }
  constexpr ReduceScatterOp operation() const { return {size(), commutative_}; }
  /// Every rank does rank 0's step, translated (rank XOR r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::bits(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const std::size_t p = size();
    const Pattern result = contiguous(Buffer::output, slot_ == ResultSlot::first ? 0 : r, 1);
    if (p == 1) {
      v.local({contiguous(Buffer::input, 0, 1), result});
      return;
    }
    const std::size_t bit = std::size_t{1} << step;
    const std::size_t partner = r ^ bit;
    const std::size_t low = r & (bit - 1);
    const std::size_t count = p / (bit << 1);
    const Combine side = partner < r ? Combine::left : Combine::right;
    const Buffer from = step == 0 ? Buffer::input : Buffer::scratch;
    v.send({partner, strided(from, low | (partner & bit), count, 1, bit << 1)});
    const Pattern keep = strided(Buffer::scratch, low | (r & bit), count, 1, bit << 1);
    const Combine mine = side == Combine::left ? Combine::right : Combine::left; // where this rank's part goes
    if (step + 1 == num_steps() && !(in_place_ && step == 0)) {
      // One block (r) left: the partner's part of it straight into the result, this rank's
      // (its input block at p = 2, else its partial) joined on the proper side.
      v.recv({partner, result});
      v.local({step == 0 ? contiguous(Buffer::input, r, 1) : contiguous(Buffer::scratch, r, 1), result, mine});
      return;
    }
    if (step == 0) {
      // Receive a copy, then fold in this rank's own contribution on the proper side.
      v.recv({partner, keep});
      v.local({strided(Buffer::input, low | (r & bit), count, 1, bit << 1), keep, mine});
    } else {
      v.recv({partner, keep, side});
    }
    if (step + 1 == num_steps()) v.local({contiguous(Buffer::scratch, r, 1), result});
  }

  friend constexpr bool operator==(const ReduceScatterHalvingSchedule&, const ReduceScatterHalvingSchedule&) = default;

private:
  std::size_t p_;
  bool commutative_;
  ResultSlot slot_;
  bool in_place_;
};

namespace reduce_scatter_algorithm {
/// ALL_TO_ALL_RED_HCUBE, recursive halving; p a power of two; any operator.
struct RecursiveHalving : AlgorithmBase<Collective::reduce_scatter> {
  static constexpr const char* name = "recursive_halving";
  /// The result (output block 0) is written last, after every read of the input.
  static constexpr bool input_may_alias_output = true;
  static constexpr Needs needs{.power_of_two = true};
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ReduceScatterHalvingSchedule(t.size(), pr.commutative, ResultSlot::first, pr.in_place);
  }
};
inline constexpr RecursiveHalving recursive_halving{};
} // namespace reduce_scatter_algorithm

} // namespace collectives
