#pragma once
// Long-message broadcast: scatter the message in p pieces, then all-gather them round the
// ring (the seeds' message splitting).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allgather/ring.hpp>
#include <collectives/algorithm/scatter/tree.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Long messages (the seeds' message splitting, MPICH above ~12 KiB): scatter p blocks by
/// the binomial tree, then an all-gather round the ring. Cost: about
/// 2 (t_s log p + t_w m) for the scatter-then-all-to-all-broadcast on a hypercube.
constexpr auto broadcast_scatter_allgather_schedule(std::size_t p, std::size_t root)
{
  return Concat(ScatterTreeSchedule(p, ring_shape(p), root, true), AllgatherRingSchedule(p, true),
                BroadcastOp{p, root, p});
}

namespace broadcast_algorithm {
/// Long messages: scatter p pieces, then an all-gather round the ring; any p.
struct ScatterAllgather : AlgorithmBase<Collective::broadcast> {
  static constexpr const char* name = "scatter_allgather";
  /// The message in p pieces.
  static constexpr std::size_t pieces(std::size_t p) { return p; }
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return broadcast_scatter_allgather_schedule(t.size(), pr.root);
  }
};
inline constexpr ScatterAllgather scatter_allgather{};
} // namespace broadcast_algorithm

} // namespace collectives
