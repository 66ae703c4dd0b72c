#pragma once
// All-gather by recursive doubling (the seeds' ALL_TO_ALL_BC_HCUBE).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allgather/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/detail/power_of_two.hpp>

#include <cstddef>

namespace collectives {

/// ALL_TO_ALL_BC_HCUBE: recursive doubling, log p steps, dimension 0 first; the message
/// doubles each step. p a power of two. Cost: t_s log p + t_w m (p - 1).
class AllgatherRecursiveDoublingSchedule {
public:
  constexpr explicit AllgatherRecursiveDoublingSchedule(std::size_t p, bool in_place = false) : p_(p), in_place_(in_place)
  {
    detail::require_power_of_two_ranks(p_, "collectives::allgather(recursive_doubling)");
  }
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return size() > 1 ? detail::log2_exact(size()) : 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllgatherOp operation() const { return {size(), in_place_}; }
  /// Every rank does rank 0's step, translated (rank XOR r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::bits(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    if (step == 0 && !in_place_) v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, r, 1)});
    if (size() == 1) return;
    const std::size_t half = std::size_t{1} << step;
    const std::size_t partner = r ^ half;
    const std::size_t mine = r & ~(half - 1);
    const std::size_t theirs = partner & ~(half - 1);
    v.send({partner, step == 0 ? detail::own_block(in_place_, r) : contiguous(Buffer::output, mine, half)});
    v.recv({partner, contiguous(Buffer::output, theirs, half)});
  }

  friend constexpr bool operator==(const AllgatherRecursiveDoublingSchedule&, const AllgatherRecursiveDoublingSchedule&) = default;

private:
  std::size_t p_;
  bool in_place_;
};

namespace allgather_algorithm {
/// ALL_TO_ALL_BC_HCUBE: log p steps, messages double; p a power of two.
struct RecursiveDoubling : AlgorithmBase<Collective::allgather> {
  static constexpr const char* name = "recursive_doubling";
  static constexpr Needs needs{.power_of_two = true};
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return AllgatherRecursiveDoublingSchedule(t.size(), pr.in_place);
  }
};
inline constexpr RecursiveDoubling recursive_doubling{};
} // namespace allgather_algorithm

} // namespace collectives
