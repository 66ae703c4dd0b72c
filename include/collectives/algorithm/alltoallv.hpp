#pragma once
// The algorithms of alltoallv (all-to-all personalized with per-block counts) and the
// collective's one list of them: those that send each block as one message.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/alltoallv/linear.hpp>
#include <collectives/algorithm/alltoallv/pairwise.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace alltoallv_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace alltoallv_algorithm

/// alltoallv's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::alltoallv> {
  static constexpr auto value = boost::hana::make_tuple(alltoallv_algorithm::pairwise, alltoallv_algorithm::pairwise_xor,
                                                        alltoallv_algorithm::linear);
};

} // namespace collectives
