#pragma once
// The algorithms of broadcast (one-to-all broadcast), one file each, and the collective's one list of them.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/broadcast/dimensional_ring.hpp>
#include <collectives/algorithm/broadcast/linear.hpp>
#include <collectives/algorithm/broadcast/ring.hpp>
#include <collectives/algorithm/broadcast/ring_staggered.hpp>
#include <collectives/algorithm/broadcast/scatter_allgather.hpp>
#include <collectives/algorithm/broadcast/scatter_allgather_hypercube.hpp>
#include <collectives/algorithm/broadcast/tree.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace broadcast_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace broadcast_algorithm

/// broadcast's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::broadcast> {
  static constexpr auto value = boost::hana::make_tuple(
    broadcast_algorithm::binomial,
    broadcast_algorithm::hypercube,
    broadcast_algorithm::dimensional,
    broadcast_algorithm::ring,
    broadcast_algorithm::scatter_allgather,
    broadcast_algorithm::ring_staggered,
    broadcast_algorithm::dimensional_ring,
    broadcast_algorithm::scatter_allgather_hypercube,
    broadcast_algorithm::linear
  );
};

} // namespace collectives
