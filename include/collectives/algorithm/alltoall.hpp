#pragma once
// The algorithms of alltoall (all-to-all personalized exchange), one file each, and the
// collective's one list of them.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/alltoall/bruck.hpp>
#include <collectives/algorithm/alltoall/dimensional.hpp>
#include <collectives/algorithm/alltoall/hypercube.hpp>
#include <collectives/algorithm/alltoall/linear.hpp>
#include <collectives/algorithm/alltoall/pairwise.hpp>
#include <collectives/algorithm/alltoall/ring.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace alltoall_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace alltoall_algorithm

/// alltoall's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::alltoall> {
  static constexpr auto value = boost::hana::make_tuple(
    alltoall_algorithm::pairwise, alltoall_algorithm::pairwise_xor, alltoall_algorithm::ring,
    alltoall_algorithm::ring_two_way, alltoall_algorithm::bruck, alltoall_algorithm::standard_exchange,
    alltoall_algorithm::all_port, alltoall_algorithm::dimensional, alltoall_algorithm::linear);
};

} // namespace collectives
