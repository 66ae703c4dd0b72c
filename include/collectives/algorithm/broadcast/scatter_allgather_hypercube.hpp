#pragma once
// Long-message broadcast on a hypercube, as seed 001 splits the message: scatter p pieces
// down the hypercube tree (Figure 3.16), then the hypercube all-to-all broadcast
// (ALL_TO_ALL_BC_HCUBE, Figure 3.12).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allgather/recursive_doubling.hpp>
#include <collectives/algorithm/scatter/tree.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// The seeds' split broadcast: the message in p pieces, scattered by the hypercube tree
/// (virtual id = rank XOR root, so every message crosses one link for any root), then
/// all-gathered by recursive doubling; both in place in the output. p a power of two.
/// Cost: 2 log p (t_s + t_h) + 2 t_w m (p - 1)/p, the seed's 2(t_s log p + t_w m).
constexpr auto broadcast_scatter_allgather_hypercube_schedule(std::size_t p, std::size_t root)
{
  return Concat(ScatterTreeSchedule(p, bits_shape(p), root, true), AllgatherRecursiveDoublingSchedule(p, true),
                BroadcastOp{p, root, p});
}

namespace broadcast_algorithm {
/// Long messages on a hypercube: scatter p pieces by the hypercube tree, then the
/// recursive-doubling all-gather: 2(t_s log p + t_w m (p - 1)/p); p a power of two.
struct ScatterAllgatherHypercube : AlgorithmBase<Collective::broadcast> {
  static constexpr const char* name = "scatter_allgather_hypercube";
  static constexpr Needs needs{.power_of_two = true};
  /// The message in p pieces.
  static constexpr std::size_t pieces(std::size_t p) { return p; }
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return broadcast_scatter_allgather_hypercube_schedule(t.size(), pr.root);
  }
};
inline constexpr ScatterAllgatherHypercube scatter_allgather_hypercube{};
} // namespace broadcast_algorithm

} // namespace collectives
