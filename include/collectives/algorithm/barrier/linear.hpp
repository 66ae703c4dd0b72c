#pragma once
// Barrier through rank 0: every rank signals it, then it signals every rank.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allreduce/linear.hpp>
#include <collectives/topology/concepts.hpp>

namespace collectives {

namespace barrier_algorithm {
/// The linear all-reduce of nothing: every rank signals rank 0, which then signals every
/// rank; two steps, any p (Open MPI's basic_linear). Where ranks share cores two waits for
/// partners instead of log2 p; rank 0 takes 2 (p - 1) start-ups.
struct Linear : AlgorithmBase<Collective::barrier> {
  static constexpr const char* name = "linear";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem&) { return allreduce_linear_schedule(t.size(), false, true); }
};
inline constexpr Linear linear{};
} // namespace barrier_algorithm

} // namespace collectives
