#pragma once
// Ring all-reduce: ring reduce-scatter then ring all-gather, the vector in p pieces.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allgather/ring.hpp>
#include <collectives/algorithm/reduce_scatter/ring.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Ring all-reduce: ALL_TO_ALL_RED_RING then ALL_TO_ALL_BC_RING in place, the vector cut
/// into p blocks; needs a commutative operator. Not in place (the reduce-scatter reads
/// contributions from the input). Cost: 2 (p - 1)(t_s + t_w m / p).
constexpr auto allreduce_ring_schedule(std::size_t p)
{
  return Concat(ReduceScatterRingSchedule(p, ResultSlot::own), AllgatherRingSchedule(p, true),
                AllreduceOp{p, p, true, false});
}

namespace allreduce_algorithm {
/// Ring reduce-scatter + ring all-gather; commutative operators only; not in place.
struct Ring : AlgorithmBase<Collective::allreduce> {
  static constexpr const char* name = "ring";
  static constexpr Needs needs{.commutative = true, .out_of_place = true};
  /// The vector in p pieces.
  static constexpr std::size_t pieces(std::size_t p) { return p; }
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem&) { return allreduce_ring_schedule(t.size()); }
};
inline constexpr Ring ring{};
} // namespace allreduce_algorithm

} // namespace collectives
