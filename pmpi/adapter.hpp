#pragma once
// THE ADAPTER: the one place where the shim reads the library's lists of algorithms and
// asks about them (to run a forced one by name, to list the valid names, to tell whether
// one fits a call, to map the cost model's pick to a tag). Everything else in the shim
// names algorithms by their index in these lists (algorithms.hpp).
//
// When the library's algorithm registry replaces algorithm_candidates /
// default_candidates / algorithm_cost, repoint tags<C>(), any_operator_v, fits_of() and
// cheapest_of() here (and give alltoallv and barrier their Collective in collective_of).

#include "algorithms.hpp"

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
#include <bit>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collectives::pmpi {

namespace algorithms {

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

/// Whether algorithm `index` of C fits `topo` and `problem`.
template <Coll C>
bool fits_of(std::size_t index, const ShimTopology& topo, const Problem& problem)
{
  bool ok = false;
  with_algorithm<C>(index, [&](auto tag) {
    using Tag = decltype(tag);
    if constexpr (C == Coll::barrier) ok = true;
    else if constexpr (fits_type_v<collective_of<C>(), Tag, ShimTopology>)
      ok = collectives::fits<collective_of<C>(), Tag>(topo, problem);
  });
  return ok;
}

/// The index of the algorithm of C the cost model picks.
template <Coll C>
std::size_t cheapest_of(const ShimTopology& topo, const CostModel& model, const Problem& problem)
{
  std::string_view name;
  if constexpr (C == Coll::alltoallv) name = std::has_single_bit(topo.size()) ? "pairwise_xor" : "pairwise";
  else if constexpr (C == Coll::barrier) name = "dissemination";
  else name = select<collective_of<C>()>(topo, model, problem).name;
  for (std::size_t i = 0; i < names_v<C>.size(); ++i)
    if (names_v<C>[i] == name) return i;
  throw std::logic_error("collectives-pmpi: the cost model picked " + std::string(name) + ", which is not an algorithm of " +
                         std::string(coll_name(C)));
}

} // namespace algorithms
} // namespace collectives::pmpi
