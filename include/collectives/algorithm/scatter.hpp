#pragma once
// The algorithms of scatter (one-to-all personalized), one file each, and the collective's one list of them.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/scatter/dimensional_ring.hpp>
#include <collectives/algorithm/scatter/linear.hpp>
#include <collectives/algorithm/scatter/ring.hpp>
#include <collectives/algorithm/scatter/tree.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace scatter_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace scatter_algorithm

/// scatter's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::scatter> {
  static constexpr auto value = boost::hana::make_tuple(
    scatter_algorithm::binomial,
    scatter_algorithm::hypercube,
    scatter_algorithm::dimensional,
    scatter_algorithm::ring,
    scatter_algorithm::dimensional_ring,
    scatter_algorithm::linear
  );
};

} // namespace collectives
