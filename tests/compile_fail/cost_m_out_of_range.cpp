// expect: collectives::estimate: m \(words per block\) must be finite, non-negative
//
// estimate() in constant evaluation with a negative block size does not compile (at run
// time it throws std::invalid_argument). The twin estimates 8 words.
#include <collectives/algorithm/alltoall/pairwise.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/topology/hypercube.hpp>

using namespace collectives;

constexpr CostModel model{.t_s = 1e-6, .t_w = 1e-9};
#ifndef COLLECTIVES_TWIN
constexpr double m = -8;
#else
constexpr double m = 8;
#endif
static_assert(estimate(PairwiseXorSchedule(4), Hypercube<2>{}, model, m).time > 0);
