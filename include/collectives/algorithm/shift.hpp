#pragma once
// The algorithms of shift (circular q-shift), one file each, and the collective's one list
// of them. hypercube_sf shifts positions on the Gray-code ring, not ranks (see
// algorithm/shift/hypercube.hpp), so it is not in the list the default picks from: name
// it to run it.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/algorithm/shift/direct.hpp>
#include <collectives/algorithm/shift/hypercube.hpp>
#include <collectives/algorithm/shift/mesh.hpp>
#include <collectives/algorithm/shift/ring.hpp>

#include <boost/hana/tuple.hpp>

namespace collectives {

namespace shift_algorithm {
using Default = Automatic;
using collectives::automatic;
} // namespace shift_algorithm

/// shift's algorithms (of ranks), in order of preference on a cost tie.
template <>
struct algorithm_list<Collective::shift> {
  static constexpr auto value = boost::hana::make_tuple(shift_algorithm::ring, shift_algorithm::direct, shift_algorithm::mesh);
};

} // namespace collectives
