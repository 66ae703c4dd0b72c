#pragma once
// Broadcast on a mesh or torus, store-and-forward: the staggered ring broadcast along each
// dimension in turn (seed 001 Figure 3.4; three phases on a 3-D mesh).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/broadcast/ring_staggered.hpp>
#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/topology/concepts.hpp>

namespace collectives {

namespace broadcast_algorithm {
/// One store-and-forward ring phase per dimension of a mesh, torus or hypercube, slowest
/// dimension first (BroadcastStaggeredSchedule on topology_shape): sum_i ceil(z_i/2)
/// (t_s + t_w m + t_h); on a square mesh the seed's 2(t_s + t_w m) ceil(sqrt(p)/2), on a
/// 3-D one 3(t_s + t_w m) ceil(p^(1/3)/2). Needs a product of rings.
struct DimensionalRing : AlgorithmBase<Collective::broadcast> {
  static constexpr const char* name = "dimensional_ring";
  static constexpr Needs needs{.product = true};
  template <product_topology T>
  static constexpr auto schedule(const T& t, const Problem& pr)
  {
    return BroadcastStaggeredSchedule(t.size(), topology_shape(t), pr.root);
  }
};
inline constexpr DimensionalRing dimensional_ring{};
} // namespace broadcast_algorithm

} // namespace collectives
