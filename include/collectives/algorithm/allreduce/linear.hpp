#pragma once
// All-reduce as a linear reduce to rank 0 followed by a linear broadcast (Open MPI's
// basic_linear: its reduce, then its broadcast).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/broadcast/linear.hpp>
#include <collectives/algorithm/reduce/linear.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Every rank sends its contribution to rank 0, which combines them in rank order
/// (ReduceLinearSchedule, result in its output), then rank 0 sends the result to every
/// rank (BroadcastLinearSchedule). Any p, any operator, in place or not. Two steps, so
/// where ranks share cores (lanes, t_sync) two waits for partners where a tree or
/// recursive doubling pays 2 log p or log p. Cost (one-port): 2 (p - 1)(t_s + t_w m) +
/// (p - 1) t_r m plus hops.
constexpr auto allreduce_linear_schedule(std::size_t p, bool in_place, bool commutative)
{
  return Concat(ReduceLinearSchedule(p, 0, commutative, in_place), BroadcastLinearSchedule(p, 0),
                AllreduceOp{p, 1, commutative, in_place});
}

namespace allreduce_algorithm {
/// A linear reduce to rank 0, then a linear broadcast; any p, any operator (Open MPI's
/// basic_linear).
struct Linear : AlgorithmBase<Collective::allreduce> {
  static constexpr const char* name = "linear";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return allreduce_linear_schedule(t.size(), pr.in_place, pr.commutative);
  }
};
inline constexpr Linear linear{};
} // namespace allreduce_algorithm

} // namespace collectives
