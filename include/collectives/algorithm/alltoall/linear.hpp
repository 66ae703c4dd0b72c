#pragma once
// Alltoall in one step: every rank posts all its sends and receives at once (Open MPI's
// basic_linear, MPICH's isend_irecv).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/rings.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// One step: every rank r sends block r + g of its input to rank r + g and receives block
/// r - g of its output from rank r - g, for the translations g = 1 .. p - 1 of `group` in
/// that order (rank order round a ring; XOR on a hypercube; digit by digit on a mesh or
/// torus, so that each topology's own translations map the step onto itself), and copies
/// its own block. Any p as a schedule (the algorithm takes p <= linear_alltoall_max_ranks);
/// each block is copied once, straight from the sender's input to the receiver's output.
/// Cost (one-port): the pairwise exchange's words and start-ups in one step,
/// (p - 1)(t_s + t_w m) plus hops and link sharing; what it saves is the p - 2
/// synchronisations between steps (ranks that share cores wait for their partners once).
class AlltoallLinearSchedule {
public:
  constexpr explicit AlltoallLinearSchedule(std::size_t p) : group_(RankGroup::cyclic(p)) {}
  /// `group` must be valid (RankGroup::valid()).
  constexpr explicit AlltoallLinearSchedule(const RankGroup& group) : group_(group) {}
  constexpr std::size_t size() const { return group_.p; }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr AlltoallOp operation() const { return {size()}; }
  /// Every rank does rank 0's step, translated.
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(group_); }

  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const
  {
    const std::size_t p = size();
    for (std::size_t g = 1; g < p; ++g) {
      const std::size_t to = group_.plus(r, g);
      v.send({to, contiguous(Buffer::input, to, 1)});
    }
    for (std::size_t g = 1; g < p; ++g) {
      const std::size_t from = group_.plus(r, group_.minus(0, g)); // r - g
      v.recv({from, contiguous(Buffer::output, from, 1)});
    }
    v.local({contiguous(Buffer::input, r, 1), contiguous(Buffer::output, r, 1)});
  }

  friend constexpr bool operator==(const AlltoallLinearSchedule&, const AlltoallLinearSchedule&) = default;

private:
  RankGroup group_;
};

namespace detail {
/// The linear alltoall in the translations of `t`: its rings' when it has at most
/// RankGroup::max_digits of them, else rank order.
template <topology T>
constexpr AlltoallLinearSchedule alltoall_linear_schedule(const T& t)
{
  if constexpr (product_topology<T>) {
    const RankGroup g = RankGroup::of(rings_of(t));
    if (g.valid()) return AlltoallLinearSchedule(g);
  }
  return AlltoallLinearSchedule(t.size());
}
} // namespace detail

/// The most ranks the linear alltoall serves: its p - 1 messages per rank at once are what
/// one node's shared memory takes well and a network does not (every link shared, incast
/// at each receiver), and beyond it the estimate cannot work its step out by classes (at
/// most 64 messages) within the compilers' constant-evaluation limits.
inline constexpr std::size_t linear_alltoall_max_ranks = 64;

namespace alltoall_algorithm {
/// Every block sent at once, one step; p <= 64 (Open MPI's basic_linear).
struct Linear : AlgorithmBase<Collective::alltoall> {
  static constexpr const char* name = "linear";
  static constexpr Needs needs{.max_ranks = linear_alltoall_max_ranks};
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return detail::alltoall_linear_schedule(t); }
};
inline constexpr Linear linear{};
} // namespace alltoall_algorithm

} // namespace collectives
