#pragma once
// The algorithms of scan and exscan (prefix reductions), one file each, and the
// collective's one list of them (exscan runs the same schedules, exclusive).

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/scan/hypercube.hpp>
#include <collectives/algorithm/scan/linear.hpp>
#include <collectives/algorithm/scan/recursive_doubling.hpp>
#include <collectives/algorithm/scan/ring.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace scan_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace scan_algorithm

/// scan's algorithms, in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::scan> {
  static constexpr auto value =
    boost::hana::make_tuple(scan_algorithm::hypercube, scan_algorithm::ring, scan_algorithm::recursive_doubling,
                            scan_algorithm::linear);
};

} // namespace collectives
