#pragma once
// All-reduce as a binomial reduce to rank 0 followed by a binomial broadcast.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/broadcast/tree.hpp>
#include <collectives/algorithm/reduce/tree.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Reduce to rank 0 by the binomial tree (partials in the output), then broadcast from
/// rank 0 by the same tree. Any p, any operator. Cost: 2 (t_s + t_w m) ceil(log p).
constexpr auto allreduce_reduce_broadcast_schedule(std::size_t p, bool in_place, bool commutative)
{
  return Concat(ReduceTreeSchedule(p, ring_shape(p), 0, commutative, 1, in_place ? Partials::in_place : Partials::output),
                BroadcastTreeSchedule(p, ring_shape(p), 0), AllreduceOp{p, 1, commutative, in_place});
}

namespace allreduce_algorithm {
/// A binomial reduce to rank 0, then a binomial broadcast; any p, any operator.
struct ReduceBroadcast : AlgorithmBase<Collective::allreduce> {
  static constexpr const char* name = "reduce_broadcast";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return allreduce_reduce_broadcast_schedule(t.size(), pr.in_place, pr.commutative);
  }
};
inline constexpr ReduceBroadcast reduce_broadcast{};
} // namespace allreduce_algorithm

} // namespace collectives
