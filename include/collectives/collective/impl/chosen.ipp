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

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

namespace collectives::detail {

/// Builds algorithm A's schedule on `topo` into `out` (A fits W's type: never picked otherwise).
template <class A, class W>
void build_schedule(const W& topo, const Problem& problem, ErasedSchedule& out)
{
  if constexpr (fits_topology_type<A, W>)
    out.emplace(A::schedule(topo, problem));
  else
    require(false, "collectives: the picked algorithm does not fit the topology's type");
}

/// Whether A can run on `topo` for `problem` (fits(), and false where W's type rules A out).
template <class A, class W>
bool fits_on(const W& topo, const Problem& problem)
{
  if constexpr (fits_topology_type<A, W>)
    return fits(A{}, topo, problem);
  else
    return false;
}

/// Per algorithm of C, in list order: how to build its schedule on W, and whether it fits.
template <Collective C, class W>
struct Builders {
  using Build = void (*)(const W&, const Problem&, ErasedSchedule&);
  using Fits = bool (*)(const W&, const Problem&);
  static constexpr auto build = boost::hana::unpack(algorithms<C>, [](auto... a) {
    return std::array<Build, sizeof...(a)>{&build_schedule<decltype(a), W>...};
  });
  static constexpr auto fit = boost::hana::unpack(algorithms<C>, [](auto... a) {
    return std::array<Fits, sizeof...(a)>{&fits_on<decltype(a), W>...};
  });
};

/// select_among<false>(algorithms<C>, ...)'s pick, over the schedules the builders make:
/// the same estimates (estimate_every_rank's walk), the same ties (to the earlier), the
/// same errors, the same early stop of a candidate dearer than the best so far; no estimate
/// is compiled per schedule type (tests/separate/compiled_choice_picks.cpp compares the picks).
template <Collective C, class W>
std::size_t compiled_select_of(const W& topo, const CostModel& model, const Problem& problem, std::uint64_t allowed)
{
  using B = Builders<C, W>;
  model.validated();
  const std::size_t p = topo.size();
  const auto candidate = [&](std::size_t j) {
    return (j >= 64 || ((allowed >> j) & 1) != 0) && B::fit[j](topo, problem);
  };
  // As select_among<false>: the candidate of fewest steps first, then every other one's
  // walk stops once it is dearer than the best so far (the same pick).
  std::size_t seed = Selection::npos, fewest = 0;
  for (std::size_t j = 0; j < B::build.size(); ++j) {
    if (!candidate(j)) continue;
    require_root(C, topo, problem);
    ErasedSchedule s;
    B::build[j](topo, problem, s);
    if (seed == Selection::npos || s.ref().steps < fewest) {
      seed = j;
      fewest = s.ref().steps;
    }
  }
  const auto time_of = [&](std::size_t j, double beyond) {
    ErasedSchedule s;
    B::build[j](topo, problem, s);
    const double m = problem.m / static_cast<double>(choice_facts<C>[j].pieces(p));
    const ScheduleRef& r = s.ref();
    const WalkScheduleRef<W> walked(r.object, p, r.steps, r.visit);
    check_estimate_args(walked, topo, model, m); // (estimate_every_rank's checks)
    return walk_every_rank_at_run_time(walked, topo, model, m, beyond).time;
  };
  const double seed_time = seed == Selection::npos ? 0 : time_of(seed, std::numeric_limits<double>::infinity());
  std::size_t best = Selection::npos;
  double best_time = 0;
  for (std::size_t j = 0; j < B::build.size(); ++j) {
    if (!candidate(j)) continue;
    const double t = j == seed ? seed_time : time_of(j, best == Selection::npos ? seed_time : std::min(best_time, seed_time));
    if (best == Selection::npos || t < best_time) {
      best = j;
      best_time = t;
    }
  }
  require(best != Selection::npos, "collectives::select: no candidate algorithm fits this topology and problem");
  return best;
}

template <Collective C, class W>
void compiled_schedule_of(std::size_t index, const W& topo, const Problem& problem, ErasedSchedule& out)
{
  // Reached by index: this runs on every default call.
  using B = Builders<C, W>;
  require(index < B::build.size(), "collectives::visit_algorithm: no candidate at that index");
  B::build[index](topo, problem, out);
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
  std::size_t compiled_select(Collective c, const __VA_ARGS__& topo, const CostModel& model,                \
                              const Problem& problem, std::uint64_t allowed)                               \
  {                                                                                                        \
    return with_collective(                                                                                \
      c, [&](auto k) { return compiled_select_of<decltype(k)::value>(topo, model, problem, allowed); },   \
      std::make_index_sequence<all_collectives.size()>{});                                                 \
  }                                                                                                        \
  std::size_t compiled_pick(SelectionPolicy& policy, Collective c, const __VA_ARGS__& topo,                \
                            const Problem& problem, std::uint64_t allowed)                                 \
  {                                                                                                        \
    return policy.pick(c, problem,                                                                         \
                       [&] { return compiled_select(c, topo, policy.model(), problem, allowed); });        \
  }                                                                                                        \
  const ErasedSchedule& compiled_schedule(Collective c, std::size_t index, const __VA_ARGS__& topo,        \
                                         const Problem& problem, BuiltSchedule& kept)                      \
  {                                                                                                        \
    return kept.get(c, index, topo, problem, [&](ErasedSchedule& out) {                                    \
      with_collective(                                                                                     \
        c, [&](auto k) { compiled_schedule_of<decltype(k)::value>(index, topo, problem, out); },          \
        std::make_index_sequence<all_collectives.size()>{});                                               \
    });                                                                                                    \
  }
namespace collectives::detail {
COLLECTIVES_LIBRARY_WALK_TOPOLOGIES(COLLECTIVES_DETAIL_DEFINE_CHOICE)
} // namespace collectives::detail
#undef COLLECTIVES_DETAIL_DEFINE_CHOICE
