#pragma once
// Reduce-scatter through rank 0: a linear reduce of the p blocks, then a linear scatter.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// The most ranks the linear reduce-scatter serves: rank 0 holds every other rank's p
/// blocks at once, (p - 1) p blocks of scratch.
inline constexpr std::size_t linear_reduce_scatter_max_ranks = 64;

/// Step 0: every other rank sends its p blocks to rank 0, which combines them in rank
/// order into a p-block partial in scratch (rank 1's land there straight, rank 0's join
/// on the left, the others wait in scratch and join on the right). Step 1: rank 0 sends
/// block q of the result to rank q and copies its own. Any p and operator; the input is
/// read in step 0 only and the output written in step 1 only, so in place needs no copy.
/// Scratch: (p - 1) p blocks (only rank 0 touches them). Cost (one-port): (p - 1)(2 t_s +
/// t_w m (p + 1) + t_r m p) + t_r m plus hops; two waits for partners where ranks share
/// cores (lanes, t_sync).
class ReduceScatterLinearSchedule {
public:
  constexpr ReduceScatterLinearSchedule(std::size_t p, bool commutative) : p_(p), commutative_(commutative) {}
  constexpr std::size_t size() const { return p_; }
  constexpr std::size_t num_steps() const { return 2; }
  constexpr std::size_t scratch_blocks() const { return p_ > 1 ? (p_ - 1) * p_ : 0; }
  constexpr ReduceScatterOp operation() const { return {p_, commutative_}; }
  /// Rank 0: it has p - 1 messages in each step, every other rank one.
  constexpr std::size_t busiest_rank(std::size_t) const { return 0; }
  /// Each step stated whole (Symmetry::Star): a fan-in of p blocks that rank 0 combines
  /// (p = 1: copies its block), then a fan-out of one block and rank 0's copy of its own.
  constexpr Symmetry symmetry(std::size_t step) const
  {
    if (step == 0) return Symmetry::fan_in(p_, 0, p_, p_ > 1 ? (p_ - 1) * p_ : 1);
    return Symmetry::fan_out(p_, 0, 1, p_ > 1 ? 1 : 0);
  }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t step, V& v) const
  {
    const Pattern mine = contiguous(Buffer::input, 0, p_);
    if (step == 0) {
      if (r != 0) {
        v.send({0, mine});
        return;
      }
      if (p_ == 1) {
        v.local({contiguous(Buffer::input, 0, 1), contiguous(Buffer::output, 0, 1)});
        return;
      }
      for (std::size_t q = 1; q < p_; ++q) v.recv({q, waiting_at(q)});
      v.local({mine, waiting_at(1), Combine::left});
      for (std::size_t q = 2; q < p_; ++q) v.local({waiting_at(q), waiting_at(1), Combine::right});
      return;
    }
    if (p_ == 1) return;
    if (r != 0) {
      v.recv({0, contiguous(Buffer::output, 0, 1)});
      return;
    }
    for (std::size_t q = 1; q < p_; ++q) v.send({q, contiguous(Buffer::scratch, q, 1)});
    v.local({contiguous(Buffer::scratch, 0, 1), contiguous(Buffer::output, 0, 1)});
  }

  friend constexpr bool operator==(const ReduceScatterLinearSchedule&, const ReduceScatterLinearSchedule&) = default;

private:
  /// Where rank q's p blocks wait on rank 0 (q >= 1); rank 1's slot is the partial.
  constexpr Pattern waiting_at(std::size_t q) const { return contiguous(Buffer::scratch, (q - 1) * p_, p_); }
  std::size_t p_;
  bool commutative_;
};

namespace reduce_scatter_algorithm {
/// A linear reduce of the p blocks to rank 0, then a linear scatter; any operator, p <=
/// linear_reduce_scatter_max_ranks (rank 0's scratch grows as p^2).
struct Linear : AlgorithmBase<Collective::reduce_scatter> {
  static constexpr const char* name = "linear";
  static constexpr Needs needs{.max_ranks = linear_reduce_scatter_max_ranks};
  /// The input is read in step 0 only, the output written in step 1 only.
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ReduceScatterLinearSchedule(t.size(), pr.commutative);
  }
};
inline constexpr Linear linear{};
} // namespace reduce_scatter_algorithm

} // namespace collectives
