// Template fan-out (issue 12: "schedules that only need p should not be instantiated per
// topology type"): every algorithm of every collective, read from the registry, builds one
// schedule type on every topology type it runs on -- static and dynamic rings of any size,
// meshes and tori of any shape, hypercubes of any dimension. A program that runs an
// algorithm on Ring<4>, Ring<8> and Hypercube<3> therefore instantiates its schedule, and
// the executor's visit of it, once; the topology's values reach the schedule at run time.
//
// Checked by the compiler (a static_assert that names the algorithm's type in the error's
// instantiation context); the TEST_CASE then checks that the comparisons were made: every
// algorithm was compared on at least two topology types, so the check cannot pass by
// comparing nothing.

#include <catch2/catch.hpp>

#include <collectives/cost.hpp> // every collective's algorithm list

#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

using namespace collectives;

namespace {

/// The type of the schedule algorithm A builds on topology type T.
template <class A, class T>
using schedule_on = decltype(std::declval<const A&>().schedule(std::declval<const T&>(), std::declval<const Problem&>()));

/// The topology types compared: each kind static (two sizes or shapes) and dynamic.
template <class... T>
struct TopologyList {};
using Compared = TopologyList<Ring<4>, Ring<8>, Ring<>, Mesh<2, 2>, Mesh<2, 4>, Mesh<3, 3>, Mesh<>, Torus<2, 2, 2>,
                              Torus<dynamic_extent, dynamic_extent, dynamic_extent>, Hypercube<2>, Hypercube<3>,
                              Hypercube<>>;

/// The number of topology types in the list that algorithm A of collective C runs on;
/// a compile error if its schedule's type differs between any two of them (C only names
/// the collective in a failing instantiation's context).
template <class A, Collective C, class First, class... Rest>
constexpr std::size_t topology_types_checked(TopologyList<First, Rest...>)
{
  if constexpr (!fits_topology_type<A, First>) {
    if constexpr (sizeof...(Rest) == 0) return 0;
    else return topology_types_checked<A, C>(TopologyList<Rest...>{});
  } else {
    // First is the first topology type A runs on: every later one must give its type.
    std::size_t n = 1;
    auto same_as_first = [&]<class T>(std::type_identity<T>) {
      if constexpr (fits_topology_type<A, T>) {
        static_assert(std::is_same_v<schedule_on<A, First>, schedule_on<A, T>>,
                      "collectives: an algorithm builds a different schedule type on another topology type "
                      "(template fan-out: the schedule should take the topology's values at run time)");
        ++n;
      }
    };
    (same_as_first(std::type_identity<Rest>{}), ...);
    return n;
  }
}

/// For collective C: per algorithm of its list, the topology types it was checked on.
template <Collective C>
constexpr auto checked_per_algorithm()
{
  std::array<std::size_t, decltype(boost::hana::length(algorithms<C>))::value> counts{};
  std::size_t i = 0;
  boost::hana::for_each(algorithms<C>, [&](auto a) {
    counts[i++] = topology_types_checked<decltype(a), C>(Compared{});
  });
  return counts;
}

/// Every algorithm of collective C compared on at least two topology types.
template <Collective C>
void check_collective()
{
  constexpr auto counts = checked_per_algorithm<C>();
  const auto names = algorithm_names<C>();
  REQUIRE(counts.size() == names.size());
  for (std::size_t i = 0; i < counts.size(); ++i) {
    INFO(std::string(collective_name(C)) << " / " << names[i]);
    CHECK(counts[i] >= 2);
  }
}

template <std::size_t... I>
void check_every_collective(std::index_sequence<I...>)
{
  (check_collective<all_collectives[I]>(), ...);
}

} // namespace

TEST_CASE("schedule types: every algorithm builds one schedule type on every topology type it runs on",
          "[fan-out][registry]")
{
  check_every_collective(std::make_index_sequence<all_collectives.size()>{});
}
