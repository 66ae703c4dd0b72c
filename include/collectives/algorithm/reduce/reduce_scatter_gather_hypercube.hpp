#pragma once
// Long-vector reduce on a hypercube: the dual of broadcast's scatter_allgather_hypercube,
// reduce-scatter by recursive halving (ALL_TO_ALL_RED_HCUBE), then gather the p pieces
// up the hypercube tree.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/gather/tree.hpp>
#include <collectives/algorithm/reduce_scatter/recursive_halving.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Recursive halving leaves piece r of the reduction on rank r (its output block r), then
/// the hypercube tree gathers the pieces at the root (virtual id = rank XOR root, so
/// every message crosses one link for any root). Any operator. p a power of two. in_place:
/// the root's input and output may be the same memory.
/// Cost: 2 log p (t_s + t_h) + 2 t_w m (p - 1)/p + t_r m.
constexpr auto reduce_scatter_gather_hypercube_schedule(std::size_t p, std::size_t root, bool commutative,
                                                        bool in_place = false)
{
  return Concat(ReduceScatterHalvingSchedule(p, commutative, ResultSlot::own, in_place),
                GatherTreeSchedule(p, bits_shape(p), root, true), ReduceOp{p, root, p, commutative});
}

namespace reduce_algorithm {
/// Long vectors on a hypercube: reduce-scatter by recursive halving, then gather by the
/// hypercube tree: 2(t_s log p + t_w m (p - 1)/p) + t_r m for every root; p a power of
/// two, any operator. Every rank needs room for the whole result (non-roots borrow it
/// from the communicator).
struct ReduceScatterGatherHypercube : AlgorithmBase<Collective::reduce> {
  static constexpr const char* name = "reduce_scatter_gather_hypercube";
  static constexpr Needs needs{.power_of_two = true};
  /// The vector in p pieces.
  static constexpr std::size_t pieces(std::size_t p) { return p; }
  static constexpr bool output_everywhere = true;
  /// In place the root's block r is written after the reduce-scatter's last read of it.
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return reduce_scatter_gather_hypercube_schedule(t.size(), pr.root, pr.commutative, pr.in_place);
  }
};
inline constexpr ReduceScatterGatherHypercube reduce_scatter_gather_hypercube{};
} // namespace reduce_algorithm

} // namespace collectives
