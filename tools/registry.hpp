#pragma once
// The tools' one window on the library's algorithm registry. collectives-draw (name ->
// algorithm -> schedule), collectives-cost (every algorithm of a collective, the selected
// one, predictions) and their tests reach the registry only through this header, so a
// change of the registry's shape is repointed here and nowhere else.
//
// The registry: algorithms<C> (each collective's list, a hana::tuple of algorithm tags;
// algorithm/<collective>.hpp), each tag's schedule(topology, problem) and pieces(p),
// fits(), select() and predict().

#include <collectives/cost.hpp>
#include <collectives/topology.hpp>

#include <boost/hana/for_each.hpp>

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collectives::tools {

/// Calls f(tag) for every algorithm of collective C, fitting or not, in the registry's
/// order (f must compile for every tag: use it for names only).
template <Collective C, class F>
void for_each_algorithm(F&& f)
{
  boost::hana::for_each(algorithms<C>, [&](auto tag) { f(tag); });
}

/// Calls f(tag) for every algorithm of C that runs on `topo` for `problem` (only tags
/// whose type fits T are instantiated), in the registry's order.
template <Collective C, topology T, class F>
void for_each_fitting(const T& topo, const Problem& problem, F&& f)
{
  boost::hana::for_each(detail::candidates_for<C, T>(), [&](auto tag) {
    if (fits(tag, topo, problem)) f(tag);
  });
}

/// Names of every algorithm of C, in the registry's order.
template <Collective C>
std::vector<std::string> algorithm_names()
{
  std::vector<std::string> out;
  for_each_algorithm<C>([&](auto tag) { out.emplace_back(decltype(tag)::name); });
  return out;
}

/// Names of the algorithms of C that run on `topo` for `problem`.
template <Collective C, topology T>
std::vector<std::string> fitting_names(const T& topo, const Problem& problem)
{
  std::vector<std::string> out;
  for_each_fitting<C>(topo, problem, [&](auto tag) { out.emplace_back(decltype(tag)::name); });
  return out;
}

/// Calls f(tag) with the algorithm of C called `name` when it runs on `topo` for
/// `problem`; returns false (calling nothing) otherwise.
template <Collective C, topology T, class F>
bool with_algorithm(std::string_view name, const T& topo, const Problem& problem, F&& f)
{
  bool found = false;
  for_each_fitting<C>(topo, problem, [&](auto tag) {
    if (!found && name == decltype(tag)::name) {
      found = true;
      f(tag);
    }
  });
  return found;
}

/// Calls f(schedule) with the schedule the front end of C runs for algorithm `tag` on
/// `topo` and `problem`.
template <Collective C, class Tag, topology T, class F>
constexpr void with_schedule_of(Tag, const T& topo, const Problem& problem, F&& f)
{
  f(Tag::schedule(topo, problem));
}

/// Words per block of that schedule for a problem of m words on p ranks.
template <Collective C, class Tag>
constexpr double block_words_of(Tag, double m, std::size_t p)
{
  return m / static_cast<double>(Tag::pieces(p));
}

/// The predicted cost of algorithm `tag` of C on `topo`.
template <Collective C, class Tag, topology T>
CostReport prediction_of(Tag tag, const T& topo, const CostModel& model, const Problem& problem)
{
  return predict(tag, topo, model, problem);
}

/// The algorithm of C that select() picks (what a call without an algorithm runs).
template <Collective C, topology T>
Selection selected(const T& topo, const CostModel& model, const Problem& problem)
{
  return select<C>(topo, model, problem);
}

/// Calls f.template operator()<C>() for every collective the registry knows, in the order
/// of all_collectives.
template <class F>
void for_each_collective(F&& f)
{
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f.template operator()<all_collectives[I]>(), ...);
  }(std::make_index_sequence<all_collectives.size()>{});
}

/// The name a call of C on `problem` goes by: collective_name(C), but "exscan" for the
/// exclusive scan (Collective::scan with problem.exclusive).
template <Collective C>
std::string call_name(const Problem& problem)
{
  return C == Collective::scan && problem.exclusive ? std::string("exscan") : std::string(collective_name(C));
}

/// Whether an --op names the exclusive scan ("exscan": Collective::scan, problem.exclusive).
inline bool names_exscan(std::string_view op) { return op == "exscan"; }

/// Calls f.template operator()<C>() for the collective called `name` ("broadcast",
/// "reduce_scatter", ..., and "exscan" for scan: see names_exscan); returns false when
/// there is none.
template <class F>
bool with_collective(std::string_view name, F&& f)
{
  bool found = false;
  for_each_collective([&]<Collective C>() {
    if (!found && (name == collective_name(C) || (C == Collective::scan && names_exscan(name)))) {
      found = true;
      f.template operator()<C>();
    }
  });
  return found;
}

} // namespace collectives::tools
