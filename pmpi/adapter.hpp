#pragma once
// THE ADAPTER: the one place where the shim reads the library's lists of algorithms and
// asks about them (to run a forced one by name, to list the valid names, to tell whether
// one fits a call, to map the cost model's pick to a tag). Everything else in the shim
// names algorithms by their index in these lists (algorithms.hpp).
//
// The registry: algorithms<Collective::X> (each collective's one list), each tag's needs
// (commutative operator), fits(tag, topology, problem) and select().

#include "algorithms.hpp"

#include <collectives/algorithm/allgather.hpp>
#include <collectives/algorithm/allreduce.hpp>
#include <collectives/algorithm/alltoall.hpp>
#include <collectives/algorithm/alltoallv.hpp>
#include <collectives/algorithm/barrier.hpp>
#include <collectives/algorithm/broadcast.hpp>
#include <collectives/algorithm/gather.hpp>
#include <collectives/algorithm/reduce.hpp>
#include <collectives/algorithm/reduce_scatter.hpp>
#include <collectives/algorithm/scan.hpp>
#include <collectives/algorithm/scatter.hpp>
#include <collectives/cost/select.hpp>

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

/// The Collective of C (exscan runs scan's algorithms).
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
  else if constexpr (C == Coll::alltoall) return Collective::alltoall;
  else if constexpr (C == Coll::alltoallv) return Collective::alltoallv;
  else return Collective::barrier;
}

/// The library's algorithm tags for C, in its order of preference (its list).
template <Coll C>
constexpr auto tags()
{
  return collectives::algorithms<collective_of<C>()>;
}

/// Whether algorithm Tag of reduction C takes an operator that is not commutative (the
/// front ends refuse to compile the others with one).
template <Coll C, class Tag>
inline constexpr bool any_operator_v = [] {
  if constexpr (C == Coll::reduce || C == Coll::reduce_scatter || C == Coll::allreduce || C == Coll::scan ||
                C == Coll::exscan)
    return !Tag::needs.commutative;
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
    if constexpr (fits_topology_type<Tag, ShimTopology>) ok = collectives::fits(tag, topo, problem);
  });
  return ok;
}

/// The index of the algorithm of C the cost model picks.
template <Coll C>
std::size_t cheapest_of(const ShimTopology& topo, const CostModel& model, const Problem& problem)
{
  const std::string_view name = select<collective_of<C>()>(topo, model, problem).name;
  for (std::size_t i = 0; i < names_v<C>.size(); ++i)
    if (names_v<C>[i] == name) return i;
  throw std::logic_error("collectives-pmpi: the cost model picked " + std::string(name) + ", which is not an algorithm of " +
                         std::string(coll_name(C)));
}

} // namespace algorithms
} // namespace collectives::pmpi
