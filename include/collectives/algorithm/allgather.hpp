#pragma once
// The algorithms of allgather (all-to-all broadcast), one file each, and the collective's
// one list of them.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/allgather/bruck.hpp>
#include <collectives/algorithm/allgather/dimensional.hpp>
#include <collectives/algorithm/allgather/linear.hpp>
#include <collectives/algorithm/allgather/recursive_doubling.hpp>
#include <collectives/algorithm/allgather/ring.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace allgather_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace allgather_algorithm

/// allgather's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::allgather> {
  static constexpr auto value =
    boost::hana::make_tuple(allgather_algorithm::ring, allgather_algorithm::recursive_doubling,
                            allgather_algorithm::bruck, allgather_algorithm::dimensional,
                            allgather_algorithm::linear);
};

} // namespace collectives
