// Compiled, never run (tests/CMakeLists.txt: separate.visits_compiled and its twin):
// takes the address of the visit (detail::visit_thunk) of the schedule every algorithm of
// every collective builds, on every kind of topology its needs allow, and selects at run
// time on static and dynamic rings, meshes, 3-D tori and hypercubes (the estimate's walk).
// In the compiled mode (COLLECTIVES_SEPARATE_COMPILATION) the umbrella only declares those
// visits and walks (cost/compiled_once.hpp) and the object defines none of them;
// header-only it defines them all, which shows the check can see a definition.

#include <collectives/collectives.hpp>

#include <boost/hana/for_each.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace {

using Visit = void (*)(const void*, std::size_t, std::size_t, collectives::StepOps&);

template <collectives::Collective C, class T>
void add_visits(std::vector<Visit>& out)
{
  boost::hana::for_each(collectives::algorithms<C>, [&](auto a) {
    using A = decltype(a);
    if constexpr (collectives::fits_topology_type<A, T>) {
      using S = decltype(A::schedule(std::declval<const T&>(), std::declval<const collectives::Problem&>()));
      out.push_back(&collectives::detail::visit_thunk<S>);
    }
  });
}

template <collectives::Collective C>
void add_collective(std::vector<Visit>& out)
{
  using namespace collectives;
  add_visits<C, Ring<>>(out);
  add_visits<C, Mesh<>>(out);
  add_visits<C, Torus<dynamic_extent, dynamic_extent, dynamic_extent>>(out);
  add_visits<C, Hypercube<>>(out);
}

template <std::size_t... I>
void add_every_collective(std::vector<Visit>& out, std::index_sequence<I...>)
{
  (add_collective<collectives::all_collectives[I]>(out), ...);
}

} // namespace

/// Every library schedule's visit (the caller keeps the list alive against the linker).
std::vector<Visit> every_schedule_visit()
{
  std::vector<Visit> out;
  add_every_collective(out, std::make_index_sequence<collectives::all_collectives.size()>{});
  return out;
}

/// A run-time selection on each kind of topology, static and dynamic: the walks.
std::size_t select_on_every_topology()
{
  using namespace collectives;
  const Problem problem{.m = 8};
  std::size_t n = 0;
  n += select<Collective::broadcast>(Ring<4>{}, default_cost_model, problem).index;
  n += select<Collective::broadcast>(Ring<>{5}, default_cost_model, problem).index;
  n += select<Collective::broadcast>(Mesh<2, 3>{}, default_cost_model, problem).index;
  n += select<Collective::broadcast>(Mesh<>{2, 3}, default_cost_model, problem).index;
  n += select<Collective::broadcast>(Torus<2, 2, 2>{}, default_cost_model, problem).index;
  n += select<Collective::broadcast>(Torus<dynamic_extent, dynamic_extent, dynamic_extent>{2, 2, 2}, default_cost_model,
                                     problem)
         .index;
  n += select<Collective::broadcast>(Hypercube<3>{}, default_cost_model, problem).index;
  n += select<Collective::broadcast>(Hypercube<>::of_dims(3), default_cost_model, problem).index;
  return n;
}

/// The combine kernels of the common element types and operators (COLLECTIVES_LIBRARY_KERNELS,
/// execution/executor.hpp), as make_reducer takes them: compiled once in the compiled mode.
std::vector<collectives::detail::Reducer> every_library_kernel()
{
  using namespace collectives;
  std::vector<detail::Reducer> out;
#define COLLECTIVES_TEST_KERNEL(T, Op)                                                                    \
  {                                                                                                       \
    static const Op op{};                                                                                 \
    out.push_back(detail::make_reducer<T>(op));                                                           \
  }
  COLLECTIVES_LIBRARY_KERNELS(COLLECTIVES_TEST_KERNEL)
#undef COLLECTIVES_TEST_KERNEL
  return out;
}
