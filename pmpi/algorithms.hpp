#pragma once
// THE ADAPTER: the one place where the shim reads the library's lists of algorithms (to
// run a forced one by name, to list the valid names, to map the cost model's pick to a
// tag). Everything else in the shim names algorithms by their index in these lists.
//
// When the library's algorithm registry replaces algorithm_candidates /
// default_candidates / algorithm_cost, repoint tags<C>(), any_operator_v and fits() here
// (and give alltoallv and barrier their Collective entries in collective_of).

#include "topology.hpp"

#include <collectives/algorithm/allgather.hpp>
#include <collectives/algorithm/allreduce.hpp>
#include <collectives/algorithm/alltoall.hpp>
#include <collectives/algorithm/alltoallv.hpp>
#include <collectives/algorithm/barrier.hpp>
#include <collectives/algorithm/broadcast.hpp>
#include <collectives/algorithm/reduce.hpp>
#include <collectives/algorithm/reduce_scatter.hpp>
#include <collectives/algorithm/scan.hpp>
#include <collectives/algorithm/scatter.hpp>
#include <collectives/cost/selection.hpp>

#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/tuple.hpp>

#include <array>
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

/// The library's algorithm tags for C, in its order of preference.
template <Coll C>
constexpr auto tags()
{
  if constexpr (C == Coll::broadcast) return default_candidates<Collective::broadcast>();
  else if constexpr (C == Coll::reduce) return default_candidates<Collective::reduce>();
  else if constexpr (C == Coll::allgather) return default_candidates<Collective::allgather>();
  else if constexpr (C == Coll::reduce_scatter) return default_candidates<Collective::reduce_scatter>();
  else if constexpr (C == Coll::allreduce) return default_candidates<Collective::allreduce>();
  else if constexpr (C == Coll::scan || C == Coll::exscan) return default_candidates<Collective::scan>();
  else if constexpr (C == Coll::scatter) return default_candidates<Collective::scatter>();
  else if constexpr (C == Coll::gather) return default_candidates<Collective::gather>();
  else if constexpr (C == Coll::alltoall) return default_candidates<Collective::alltoall>();
  // Not Collectives yet: the algorithms their front ends take.
  else if constexpr (C == Coll::alltoallv) return boost::hana::make_tuple(alltoall_algorithm::pairwise, alltoall_algorithm::pairwise_xor);
  else return boost::hana::make_tuple(barrier_algorithm::dissemination, barrier_algorithm::allreduce);
}

/// The Collective whose cost model and fit rules describe C (alltoallv: alltoall's, whose
/// pairwise algorithms it runs; barrier: none, it always fits).
template <Coll C>
constexpr Collective collective_of()
{
  if constexpr (C == Coll::broadcast) return Collective::broadcast;
  else if constexpr (C == Coll::reduce) return Collective::reduce;
  else if constexpr (C == Coll::allgather) return Collective::allgather;
  else if constexpr (C == Coll::reduce_scatter) return Collective::reduce_scatter;
  else if constexpr (C == Coll::allreduce) return Collective::allreduce;
  else if constexpr (C == Coll::scan || C == Coll::exscan) return Collective::scan;
  else if constexpr (C == Coll::scatter) return Collective::scatter;
  else if constexpr (C == Coll::gather) return Collective::gather;
  else return Collective::alltoall;
}

/// Whether algorithm Tag of reduction C takes an operator that is not commutative (the
/// front ends refuse to compile the others with one).
template <Coll C, class Tag>
inline constexpr bool any_operator_v = [] {
  if constexpr (C == Coll::reduce || C == Coll::reduce_scatter || C == Coll::allreduce || C == Coll::scan ||
                C == Coll::exscan)
    return algorithm_cost<collective_of<C>(), Tag>::any_operator;
  else
    return true;
}();

/// The number of algorithms of C.
template <Coll C>
inline constexpr std::size_t count_v = decltype(boost::hana::length(tags<C>()))::value;

/// The names of C's algorithms, in list order.
template <Coll C>
inline constexpr auto names_v = [] {
  std::array<std::string_view, count_v<C>> a{};
  std::size_t i = 0;
  boost::hana::for_each(tags<C>(), [&](auto tag) { a[i++] = std::string_view(decltype(tag)::name); });
  return a;
}();

/// Calls f(tag) with C's algorithm number `index` (f is instantiated for every tag);
/// std::out_of_range for a bad index.
template <Coll C, class F>
void with_algorithm(std::size_t index, F&& f)
{
  std::size_t at = 0;
  bool done = false;
  boost::hana::for_each(tags<C>(), [&](auto tag) {
    if (at++ == index) {
      f(tag);
      done = true;
    }
  });
  if (!done) throw std::out_of_range("collectives-pmpi: no algorithm number " + std::to_string(index));
}

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
