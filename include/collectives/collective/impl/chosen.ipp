#pragma once
// The compiled library's part of a default call (collective/chosen.hpp): the selection
// over each collective's list and the building of the picked schedule, on each of the
// library's all-dynamic topologies. Compiled once, with COLLECTIVES_SEPARATE_COMPILATION
// (collectives/separate_compilation.hpp), which includes every collective's algorithms.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/collective/chosen.hpp>
#include <collectives/cost/select.hpp>
#include <collectives/detail/require.hpp>

#include <boost/hana/unpack.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace collectives::detail {

template <Collective C, class W>
std::size_t compiled_select_of(const W& topo, const CostModel& model, const Problem& problem, std::uint64_t allowed)
{
  constexpr bool any = boost::hana::unpack(algorithms<C>, [](auto... a) { return (fits_topology_type<decltype(a), W> || ...); });
  if constexpr (!any) {
    require(false, "collectives: no algorithm of this collective fits the communicator's topology");
    return 0;
  } else {
    return select_among<false>(algorithms<C>, topo, model, problem, allowed).index;
  }
}

/// Builds algorithm A's schedule on `topo` into `out` (A fits W's type: never picked otherwise).
template <class A, class W>
void build_schedule(const W& topo, const Problem& problem, ErasedSchedule& out)
{
  if constexpr (fits_topology_type<A, W>)
    out.emplace(A::schedule(topo, problem));
  else
    require(false, "collectives: the picked algorithm does not fit the topology's type");
}

template <Collective C, class W>
void compiled_schedule_of(std::size_t index, const W& topo, const Problem& problem, ErasedSchedule& out)
{
  // One builder per algorithm, reached by index: this runs on every default call.
  using Build = void (*)(const W&, const Problem&, ErasedSchedule&);
  static constexpr auto builders = boost::hana::unpack(algorithms<C>, [](auto... a) {
    return std::array<Build, sizeof...(a)>{&build_schedule<decltype(a), W>...};
  });
  require(index < builders.size(), "collectives::visit_algorithm: no candidate at that index");
  builders[index](topo, problem, out);
}

/// Calls f(std::integral_constant<Collective, c>) for the collective c at run time.
template <class F, std::size_t... I>
decltype(auto) with_collective(Collective c, F&& f, std::index_sequence<I...>)
{
  using R = decltype(f(std::integral_constant<Collective, all_collectives[0]>{}));
  static constexpr std::array<R (*)(F&), sizeof...(I)> table{
    +[](F& g) -> R { return g(std::integral_constant<Collective, all_collectives[I]>{}); }...};
  const auto at = static_cast<std::size_t>(c);
  require(at < table.size() && all_collectives[at] == c, "collectives: no such collective");
  return table[at](f);
}

} // namespace collectives::detail

#define COLLECTIVES_DETAIL_DEFINE_CHOICE(...)                                                              \
  std::size_t collectives::detail::compiled_select(Collective c, const __VA_ARGS__& topo,                  \
                                                   const CostModel& model, const Problem& problem,         \
                                                   std::uint64_t allowed)                                  \
  {                                                                                                        \
    return with_collective(                                                                                \
      c, [&](auto k) { return compiled_select_of<decltype(k)::value>(topo, model, problem, allowed); },   \
      std::make_index_sequence<all_collectives.size()>{});                                                 \
  }                                                                                                        \
  void collectives::detail::compiled_schedule(Collective c, std::size_t index, const __VA_ARGS__& topo,     \
                                              const Problem& problem, ErasedSchedule& out)                 \
  {                                                                                                        \
    with_collective(                                                                                       \
      c, [&](auto k) { compiled_schedule_of<decltype(k)::value>(index, topo, problem, out); },            \
      std::make_index_sequence<all_collectives.size()>{});                                                 \
  }
COLLECTIVES_DETAIL_DEFINE_CHOICE(collectives::Ring<>)
COLLECTIVES_DETAIL_DEFINE_CHOICE(collectives::Mesh<>)
COLLECTIVES_DETAIL_DEFINE_CHOICE(
  collectives::Torus<collectives::dynamic_extent, collectives::dynamic_extent, collectives::dynamic_extent>)
COLLECTIVES_DETAIL_DEFINE_CHOICE(collectives::Hypercube<>)
#undef COLLECTIVES_DETAIL_DEFINE_CHOICE
