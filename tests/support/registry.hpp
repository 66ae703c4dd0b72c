#pragma once
// Enumerating the registry in the tests: every list of algorithms is read from
// algorithms<C> (boost::hana) or algorithm_types<C> (TEMPLATE_LIST_TEST_CASE), never
// restated here, so an algorithm added to its collective's list is tested without touching
// a test. For each algorithm the helpers pick a topology its needs allow: a ring when it
// asks nothing of the topology, a mesh when it asks for a product of rings or for two
// dimensions. Only dynamic topologies (Ring<>, Mesh<>, Hypercube<>) so that each schedule,
// front end and executor thunk is instantiated once per family.

#include <collectives/collectives.hpp>

#include <boost/hana/for_each.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace collectives::testing {

/// The name of an algorithm tag, or "default" for Automatic (no algorithm named).
template <class A>
std::string name_of(A)
{
  return std::string(std::string_view(A::name));
}

/// True for Automatic: the call names no algorithm.
template <class A>
inline constexpr bool is_default = std::is_same_v<A, Automatic>;

/// collective(args..., alg), or collective(args...) for Automatic: the call a user writes
/// without an algorithm, not the one with the `automatic` tag.
template <class Fn, class Alg, class... Args>
void call_with(const Fn& collective, Alg alg, Args&&... args)
{
  if constexpr (is_default<Alg>) collective(std::forward<Args>(args)...);
  else collective(std::forward<Args>(args)..., alg);
}

/// Calls f(alg) for every algorithm of collective C that a call on topology type Topo may
/// name, with an operator that is (or is not) commutative, in place or not -- decided at
/// compile time (algorithm_for), so that no call that cannot compile is instantiated --
/// and that fits `topo` for `problem` at run time (fits: a power-of-two p, ...).
/// `problem.commutative` and `problem.in_place` are taken from the template arguments.
template <Collective C, bool Commutative = true, bool InPlace = false, class Topo, class F>
void for_each_fitting(const Topo& topo, Problem problem, F&& f)
{
  problem.commutative = Commutative;
  problem.in_place = InPlace;
  boost::hana::for_each(algorithms<C>, [&](auto a) {
    using A = decltype(a);
    if constexpr (algorithm_for<A, C, Topo, Commutative, InPlace>)
      if (fits(a, topo, problem)) f(a);
  });
}

/// for_each_fitting, then f(automatic): every algorithm the call can run, and the default.
template <Collective C, bool Commutative = true, bool InPlace = false, class Topo, class F>
void for_each_fitting_and_default(const Topo& topo, const Problem& problem, F&& f)
{
  for_each_fitting<C, Commutative, InPlace>(topo, problem, f);
  f(automatic);
}

/// How many algorithms of C fit `topo` for `problem` (so a test can say that it ran some).
template <Collective C, class Topo>
std::size_t fitting_count(const Topo& topo, const Problem& problem = {})
{
  std::size_t n = 0;
  for_each_fitting<C>(topo, problem, [&](auto) { ++n; });
  return n;
}

/// Rows and columns of a 2-D mesh of p nodes, as square as p allows (rows <= columns).
inline std::pair<std::size_t, std::size_t> mesh_shape(std::size_t p)
{
  std::size_t a = 1;
  for (std::size_t d = 1; d * d <= p; ++d)
    if (p % d == 0) a = d;
  return {a, p / a};
}

/// True when algorithm A asks for a product of rings (a mesh, torus or hypercube).
template <class A>
inline constexpr bool needs_product = [] {
  if constexpr (is_default<A>) return false;
  else return A::needs.product || A::needs.two_or_more_dims || A::needs.two_dims;
}();

/// The topology of p nodes a sweep runs algorithm A on: a ring, or for an algorithm that
/// needs a product of rings the mesh of mesh_shape(p). Whether A then fits (a power of two,
/// two dimensions of more than one node...) is for fits() to say.
template <class A>
auto sweep_topology(std::size_t p)
{
  if constexpr (needs_product<A>) {
    const auto [rows, cols] = mesh_shape(p);
    return Mesh<>{rows, cols};
  } else {
    return Ring<>{p};
  }
}

/// True when A (or the default) can run on `topo` for `problem`.
template <class A, class Topo>
bool runs_on(A a, const Topo& topo, const Problem& problem = {})
{
  if constexpr (is_default<A>) return true;
  else return fits(a, topo, problem);
}

/// algorithm_types<C> with Automatic appended: TEMPLATE_LIST_TEST_CASE over every
/// algorithm of C and the call without one.
template <Collective C>
using algorithm_types_and_default = decltype(std::tuple_cat(std::declval<algorithm_types<C>>(), std::tuple<Automatic>{}));

} // namespace collectives::testing
