#pragma once
// The algorithms of reduce_scatter (all-to-all reduction), one file each, and the
// collective's one list of them.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/reduce_scatter/dimensional.hpp>
#include <collectives/algorithm/reduce_scatter/linear.hpp>
#include <collectives/algorithm/reduce_scatter/pairwise.hpp>
#include <collectives/algorithm/reduce_scatter/recursive_halving.hpp>
#include <collectives/algorithm/reduce_scatter/ring.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace reduce_scatter_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace reduce_scatter_algorithm

/// reduce_scatter's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::reduce_scatter> {
  static constexpr auto value =
    boost::hana::make_tuple(reduce_scatter_algorithm::recursive_halving, reduce_scatter_algorithm::ring,
                            reduce_scatter_algorithm::pairwise, reduce_scatter_algorithm::dimensional,
                            reduce_scatter_algorithm::linear);
};

} // namespace collectives
