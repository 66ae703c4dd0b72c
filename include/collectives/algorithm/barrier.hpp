#pragma once
// The algorithms of barrier and the collective's one list of them.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/barrier/allreduce.hpp>
#include <collectives/algorithm/barrier/dissemination.hpp>
#include <collectives/algorithm/barrier/linear.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace barrier_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace barrier_algorithm

/// barrier's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::barrier> {
  static constexpr auto value = boost::hana::make_tuple(barrier_algorithm::dissemination, barrier_algorithm::allreduce,
                                                        barrier_algorithm::linear);
};

} // namespace collectives
