#pragma once
// Barrier by dissemination: in step k signal rank - 2^k and wait for rank + 2^k.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allgather/bruck.hpp>
#include <collectives/topology/concepts.hpp>

namespace collectives {

namespace barrier_algorithm {
/// Dissemination: ceil(log2 p) steps, any p. It is Bruck's all-gather with empty blocks,
/// so the verifier's proof that every block reaches every rank is the proof that every
/// rank waited for every other.
struct Dissemination : AlgorithmBase<Collective::barrier> {
  static constexpr const char* name = "dissemination";
  template <topology T> static constexpr auto schedule(const T& t, const Problem&) { return AllgatherBruckSchedule(t.size()); }
};
inline constexpr Dissemination dissemination{};
} // namespace barrier_algorithm

} // namespace collectives
