#pragma once
// The collectives the shim runs and what it asks of their algorithms, by index into each
// collective's list: names, fit, the cost model's pick. The lists themselves are read in
// one place only, the adapter (adapter.hpp); this header is cheap to include.

#include "topology.hpp"

#include <collectives/algorithm/collective.hpp>
#include <collectives/cost/model.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace collectives::pmpi {

/// The collectives the shim runs; MPI's calls map onto them (MPI_Allgatherv onto allgather
/// or alltoallv, MPI_Reduce_scatter onto reduce_scatter, ...).
enum class Coll : unsigned char {
  broadcast, reduce, allgather, reduce_scatter, allreduce, scan, exscan, scatter, gather, alltoall, alltoallv, barrier,
};
inline constexpr std::size_t num_colls = 12;

/// The collective's name as in collectives:: and in COLLECTIVES_<NAME>_ALGORITHM (upper-cased).
constexpr std::string_view coll_name(Coll c)
{
  constexpr std::string_view names[num_colls] = {"broadcast", "reduce",  "allgather", "reduce_scatter",
                                                 "allreduce", "scan",    "exscan",    "scatter",
                                                 "gather",    "alltoall", "alltoallv", "barrier"};
  return names[static_cast<std::size_t>(c)];
}

namespace algorithms {

inline constexpr std::size_t npos = static_cast<std::size_t>(-1);

/// The names of c's algorithms.
std::span<const std::string_view> names(Coll c);
/// "a, b, c": for error messages.
std::string names_text(Coll c);
/// The index of algorithm `name` of c, or npos.
std::size_t index_of(Coll c, std::string_view name);
/// True when algorithm `index` of c can run on `topo` for `problem` (its size and shape,
/// the operator's commutativity, in place).
bool fits(Coll c, std::size_t index, const ShimTopology& topo, const Problem& problem);
/// The algorithm the cost model picks (collectives::select; alltoallv and barrier: the
/// library's fixed defaults, pairwise XOR or pairwise, and dissemination).
std::size_t cheapest(Coll c, const ShimTopology& topo, const CostModel& model, const Problem& problem);

} // namespace algorithms
} // namespace collectives::pmpi
