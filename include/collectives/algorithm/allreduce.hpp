#pragma once
// The algorithms of allreduce, one file each, and the collective's one list of them.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allreduce/linear.hpp>
#include <collectives/algorithm/allreduce/rabenseifner.hpp>
#include <collectives/algorithm/allreduce/recursive_doubling.hpp>
#include <collectives/algorithm/allreduce/reduce_broadcast.hpp>
#include <collectives/algorithm/allreduce/ring.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace allreduce_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace allreduce_algorithm

/// allreduce's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::allreduce> {
  static constexpr auto value =
    boost::hana::make_tuple(allreduce_algorithm::recursive_doubling, allreduce_algorithm::rabenseifner,
                            allreduce_algorithm::ring, allreduce_algorithm::reduce_broadcast,
                            allreduce_algorithm::linear);
};

} // namespace collectives
