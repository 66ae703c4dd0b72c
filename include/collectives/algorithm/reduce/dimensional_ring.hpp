#pragma once
// Reduce on a mesh or torus, store-and-forward: the staggered ring reduce along each
// dimension in turn (the dual of broadcast's dimensional_ring).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/reduce/ring_staggered.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/topology/concepts.hpp>

namespace collectives {

namespace reduce_algorithm {
/// One store-and-forward ring phase per dimension of a mesh, torus or hypercube, fastest
/// dimension first (ReduceStaggeredSchedule on topology_shape): sum_i ceil(z_i/2)
/// (t_s + t_w m + t_h + t_r m) + t_r m; on a square mesh the seed's
/// 2(t_s + t_w m) ceil(sqrt(p)/2). Any operator (not known commutative: reduced at rank 0,
/// then one message to the root). Needs a product of rings.
struct DimensionalRing : AlgorithmBase<Collective::reduce> {
  static constexpr const char* name = "dimensional_ring";
  /// The contribution is read in step 0 only.
  static constexpr bool input_may_alias_output = true;
  static constexpr Needs needs{.product = true};
  template <product_topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return ReduceStaggeredSchedule(t.size(), topology_shape(t), pr.root, pr.commutative);
  }
};
inline constexpr DimensionalRing dimensional_ring{};
} // namespace reduce_algorithm

} // namespace collectives
