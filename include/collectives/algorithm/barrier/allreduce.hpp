#pragma once
// Barrier as an all-reduce of nothing.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allreduce/recursive_doubling.hpp>
#include <collectives/topology/concepts.hpp>

namespace collectives {

namespace barrier_algorithm {
/// An all-reduce of nothing (recursive doubling, folded for any p): 2 + log2 p' steps.
struct Allreduce : AlgorithmBase<Collective::barrier> {
  static constexpr const char* name = "allreduce";
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem&) { return allreduce_doubling_schedule(t.size(), false, true); }
};
inline constexpr Allreduce allreduce{};
} // namespace barrier_algorithm

} // namespace collectives
