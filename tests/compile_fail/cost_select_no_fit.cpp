// expect: collectives::select: no candidate algorithm fits the topology's type
//
// Selecting among algorithms none of which can run on the topology is a compile error
// when the topology's size is static: the hypercube algorithms need a power of two, and
// Ring<6> is not one. The twin selects on Ring<8>.
#include <collectives/algorithm/alltoall.hpp>
#include <collectives/cost/select.hpp>
#include <collectives/topology.hpp>

#include <boost/hana/tuple.hpp>

using namespace collectives;

#ifndef COLLECTIVES_TWIN
using Net = Ring<6>;
#else
using Net = Ring<8>;
#endif
constexpr auto pick = select(
  boost::hana::make_tuple(alltoall_algorithm::pairwise_xor, alltoall_algorithm::standard_exchange), Net{},
  CostModel{.t_s = 1e-6, .t_w = 1e-9}, Problem{64});
static_assert(pick.found());
