#pragma once
// All-gather through rank 0: a linear gather, then a linear broadcast of every block (Open
// MPI's basic_linear).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allgather/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Step 0: every other rank sends its block straight into rank 0's output (rank 0 copies
/// its own, unless in place). Step 1: rank 0 sends the p blocks to every other rank. Any p;
/// no scratch. Two steps, so where ranks share cores (lanes, t_sync) two waits for
/// partners where recursive doubling or Bruck pays log p; rank 0 moves the p blocks p - 1
/// times. Cost (one-port): (p - 1)(2 t_s + t_w m (p + 1)) plus hops.
class AllgatherLinearSchedule {
public:
  constexpr explicit AllgatherLinearSchedule(std::size_t p, bool in_place = false) : p_(p), in_place_(in_place) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return 2; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AllgatherOp operation() const { return {p_, in_place_}; }
  /// Rank 0: it has p - 1 messages in each step, every other rank one.
  constexpr std::size_t busiest_rank(std::size_t) const { return 0; }
  /// Each step stated whole (Symmetry::Star): a fan-in of one block, then a fan-out of p.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    return step == 0 ? Symmetry::fan_in(p_, 0, 1, in_place_ ? 0 : 1) : Symmetry::fan_out(p_, 0, p_, 0);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const Pattern all = contiguous(Buffer::output, 0, p_);
    if (step == 0) {
      if (r != 0) {
        v.send({0, detail::own_block(in_place_, r)});
        return;
      }
      for (std::size_t q = 1; q < p_; ++q) v.recv({q, contiguous(Buffer::output, q, 1)});
      if (!in_place_) v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, 0, 1)});
      return;
    }
    if (r != 0) {
      v.recv({0, all});
      return;
    }
    for (std::size_t q = 1; q < p_; ++q) v.send({q, all});
  }

  friend constexpr bool operator==(const AllgatherLinearSchedule&, const AllgatherLinearSchedule&) = default;

private:
  std::size_t p_;
  bool in_place_;
};

namespace allgather_algorithm {
/// A linear gather to rank 0, then a linear broadcast of the p blocks; any p (Open MPI's
/// basic_linear).
struct Linear : AlgorithmBase<Collective::allgather> {
  static constexpr const char* name = "linear";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return AllgatherLinearSchedule(t.size(), pr.in_place);
  }
};
inline constexpr Linear linear{};
} // namespace allgather_algorithm

} // namespace collectives
