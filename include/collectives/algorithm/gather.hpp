#pragma once
// The algorithms of gather (all-to-one personalized), one file each, and the collective's one list of them.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/gather/dimensional_ring.hpp>
#include <collectives/algorithm/gather/linear.hpp>
#include <collectives/algorithm/gather/ring.hpp>
#include <collectives/algorithm/gather/tree.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace gather_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace gather_algorithm

/// gather's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::gather> {
  static constexpr auto value = boost::hana::make_tuple(
    gather_algorithm::binomial,
    gather_algorithm::hypercube,
    gather_algorithm::dimensional,
    gather_algorithm::ring,
    gather_algorithm::dimensional_ring,
    gather_algorithm::linear
  );
};

} // namespace collectives
