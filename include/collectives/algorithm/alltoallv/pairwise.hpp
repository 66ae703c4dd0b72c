#pragma once
// alltoallv by direct pairwise exchange: the alltoall schedules that send every block as
// one message straight from the sender's input to the receiver's output, so blocks of
// different sizes need no uniform staging (algorithm/alltoall/pairwise.hpp).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/alltoall/pairwise.hpp>
#include <collectives/topology/concepts.hpp>

namespace collectives {

namespace alltoallv_algorithm {
/// Direct exchange with partners rank ± k, p - 1 steps; any p.
struct Pairwise : AlgorithmBase<Collective::alltoallv> {
  static constexpr const char* name = "pairwise";
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return PairwiseSchedule(t.size()); }
};
/// Direct exchange with partner rank XOR k, p - 1 steps; p a power of two.
struct PairwiseXor : AlgorithmBase<Collective::alltoallv> {
  static constexpr const char* name = "pairwise_xor";
  static constexpr Needs needs{.power_of_two = true};
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return PairwiseXorSchedule(t.size()); }
};
inline constexpr Pairwise pairwise{};
inline constexpr PairwiseXor pairwise_xor{};
} // namespace alltoallv_algorithm

} // namespace collectives
