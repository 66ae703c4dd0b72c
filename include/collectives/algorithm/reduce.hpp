#pragma once
// The algorithms of reduce (all-to-one reduction), one file each, and the collective's one list of them.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/reduce/dimensional_ring.hpp>
#include <collectives/algorithm/reduce/linear.hpp>
#include <collectives/algorithm/reduce/reduce_scatter_gather_hypercube.hpp>
#include <collectives/algorithm/reduce/ring.hpp>
#include <collectives/algorithm/reduce/ring_staggered.hpp>
#include <collectives/algorithm/reduce/scatter_gather.hpp>
#include <collectives/algorithm/reduce/tree.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace reduce_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace reduce_algorithm

/// reduce's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::reduce> {
  static constexpr auto value = boost::hana::make_tuple(
    reduce_algorithm::binomial,
    reduce_algorithm::hypercube,
    reduce_algorithm::dimensional,
    reduce_algorithm::ring,
    reduce_algorithm::reduce_scatter_gather,
    reduce_algorithm::ring_staggered,
    reduce_algorithm::dimensional_ring,
    reduce_algorithm::reduce_scatter_gather_hypercube,
    reduce_algorithm::linear
  );
};

} // namespace collectives
