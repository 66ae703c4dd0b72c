#pragma once
// Selection by cost over every collective of the library: the machinery of
// cost/selection.hpp plus every collective's header, where each says how the cost layer
// builds its algorithms (algorithm_cost) and which are its candidates
// (algorithm_candidates). For example
//
//   constexpr auto pick = select<Collective::alltoall>(Hypercube<3>{}, model, Problem{1024});
//   static_assert(pick.name == "pairwise_xor");                 // at compile time
//   auto pick = select<Collective::alltoall>(Hypercube<>{d}, model, Problem{m});  // at run time

#include <collectives/algorithm/allgather.hpp>
#include <collectives/algorithm/allreduce.hpp>
#include <collectives/algorithm/alltoall.hpp>
#include <collectives/algorithm/broadcast.hpp>
#include <collectives/algorithm/reduce.hpp>
#include <collectives/algorithm/reduce_scatter.hpp>
#include <collectives/algorithm/scan.hpp>
#include <collectives/algorithm/scatter.hpp>
#include <collectives/algorithm/shift.hpp>
#include <collectives/cost/selection.hpp>
