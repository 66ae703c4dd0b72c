#pragma once
// Long-vector reduce: reduce-scatter, then gather the p pieces at the root.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/gather/tree.hpp>
#include <collectives/algorithm/reduce_scatter/pairwise.hpp>
#include <collectives/algorithm/reduce_scatter/recursive_halving.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/schedule/concat.hpp>
#include <collectives/schedule/either.hpp>
#include <collectives/schedule/operation.hpp>
#include <collectives/topology/concepts.hpp>

#include <cstddef>

namespace collectives {

/// Long vectors: reduce-scatter (recursive halving when p is a power of two, else
/// pairwise) leaves block r on rank r, then a binomial gather brings the p blocks to the
/// root. The output must hold the whole vector on every rank. Any operator. in_place: the
/// root's input and output may be the same memory (its block r is written after the
/// reduce-scatter's last read of it).
/// Cost: about 2 t_s log p + 2 t_w m (p - 1)/p on a hypercube.
constexpr auto reduce_scatter_gather_halving(std::size_t p, std::size_t root, bool commutative, bool in_place = false)
{
  return Concat(ReduceScatterHalvingSchedule(p, commutative, ResultSlot::own, in_place),
                GatherTreeSchedule(p, ring_shape(p), root, true), ReduceOp{p, root, p, commutative});
}
constexpr auto reduce_scatter_gather_pairwise(std::size_t p, std::size_t root, bool commutative, bool in_place = false)
{
  return Concat(ReduceScatterPairwiseSchedule(p, commutative, ResultSlot::own, in_place),
                GatherTreeSchedule(p, ring_shape(p), root, true), ReduceOp{p, root, p, commutative});
}

/// reduce_scatter_gather_halving for p a power of two, else reduce_scatter_gather_pairwise.
constexpr auto reduce_scatter_gather_schedule(std::size_t p, std::size_t root, bool commutative, bool in_place = false)
{
  using S = Either<decltype(reduce_scatter_gather_halving(1, 0, false)), decltype(reduce_scatter_gather_pairwise(1, 0, false))>;
  return detail::is_power_of_two(p) ? S(reduce_scatter_gather_halving(p, root, commutative, in_place))
                                    : S(reduce_scatter_gather_pairwise(p, root, commutative, in_place));
}

namespace reduce_algorithm {
/// Long vectors: reduce-scatter (halving for p a power of two, else pairwise), then gather
/// the p pieces at the root; any p, any operator. Every rank needs room for the whole
/// result (non-roots borrow it from the communicator).
struct ReduceScatterGather : AlgorithmBase<Collective::reduce> {
  static constexpr const char* name = "reduce_scatter_gather";
  /// The vector in p pieces.
  static constexpr std::size_t pieces(std::size_t p) { return p; }
  static constexpr bool output_everywhere = true;
  /// In place the root's block r is written after the reduce-scatter's last read of it.
  static constexpr bool input_may_alias_output = true;
  template <topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return reduce_scatter_gather_schedule(t.size(), pr.root, pr.commutative, pr.in_place);
  }
};
inline constexpr ReduceScatterGather reduce_scatter_gather{};
} // namespace reduce_algorithm

} // namespace collectives
