// expect: collectives::predict: the algorithm does not fit the topology's type
//
// Predicting an algorithm that cannot run on a static topology (the standard exchange on
// a ring of 6, not a power of two) is a compile error naming the call; on a dynamic
// topology it throws std::invalid_argument. The twin predicts the pairwise exchange.
#include <collectives/algorithm/alltoall.hpp>
#include <collectives/cost/select.hpp>
#include <collectives/topology.hpp>

using namespace collectives;

#ifndef COLLECTIVES_TWIN
constexpr auto named = alltoall_algorithm::standard_exchange;
#else
constexpr auto named = alltoall_algorithm::pairwise;
#endif
static_assert(predict(named, Ring<6>{}, CostModel{.t_s = 1e-6}, Problem{64}).time > 0);
