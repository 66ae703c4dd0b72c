#pragma once
// Circular q-shift in one step (seed 001, hypercube with cut-through routing: "use std
// labeling of processors, not RGC; use std E-cube routing to ensure congestion-free
// paths"): every rank sends its block straight to rank + q. On a hypercube under E-cube
// routing the p messages share no link, and the longest path has log p - gamma(q) links
// (gamma(q): the largest j with 2^j dividing q). The schedule is correct on any topology
// and any p (it is MPI_Sendrecv); elsewhere the routes may share links.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/shift/common.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Direct q-shift: one step, rank r sends to r + q and receives from r - q; no scratch.
/// Cost (one-port, CT, hypercube): t_s + t_w m + t_h (log p - gamma(q)).
class ShiftDirectSchedule {
public:
  /// Shift by q (any integer; reduced mod p) on topo.
  constexpr ShiftDirectSchedule(std::size_t p, std::ptrdiff_t q) : p_(p), q_(detail::reduce_shift(q, p_)) {}
  constexpr std::size_t size() const { return p_; }
  /// q mod p.
  constexpr std::size_t shift() const { return q_; }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr ShiftOp operation() const { return {size(), q_}; }
  /// Every rank does rank 0's step, translated (rank + r).
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::cyclic(size())); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const
  {
    if (q_ == 0) {
      detail::shift_copy_own(v);
      return;
    }
    v.send({detail::add_mod(r, q_, size()), contiguous(Buffer::input, 0, 1)});
    v.recv({detail::sub_mod(r, q_, size()), contiguous(Buffer::output, 0, 1)});
  }

  friend constexpr bool operator==(const ShiftDirectSchedule&, const ShiftDirectSchedule&) = default;

private:
  std::size_t p_;
  std::size_t q_;
};

namespace shift_algorithm {
/// Straight to the destination in one step (cut-through; congestion-free under E-cube on
/// a hypercube); any p.
struct Direct : AlgorithmBase<Collective::shift> {
  static constexpr const char* name = "direct";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr) { return ShiftDirectSchedule(t.size(), pr.q); }
};
inline constexpr Direct direct{};
} // namespace shift_algorithm

} // namespace collectives
