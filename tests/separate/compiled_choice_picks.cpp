// The compiled mode's default call (collective/chosen.hpp), its pick and schedule: on the
// library's rings, meshes, tori and hypercubes, the compiled library selects among the
// collective's list and builds the picked schedule on the topology's all-dynamic twin.
// Checked here against what the header path does: the same pick as select() over the same
// candidates, and a schedule equal to the one the picked algorithm builds on the static
// topology. Single-threaded, and most of the compiled mode's test code to compile (every
// collective's header-path selection on eight topologies): built where the single-threaded
// tests are (COLLECTIVES_TEST_SINGLE_THREADED; not under the sanitizers, which run
// compiled_choice.cpp's default calls).

#if !defined(COLLECTIVES_SEPARATE_COMPILATION)
#error "compiled_choice_picks.cpp tests the compiled mode"
#endif

#include <collectives/collectives.hpp>

#include <boost/hana/length.hpp>
#include <catch2/catch.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

using namespace collectives;

namespace {

// The header path's pick (select_among over T's own candidates) and the compiled one
// (an index into algorithms<C>) must name the same algorithm; the compiled schedule
// must be the one that algorithm builds on `topo` (same type, equal value).
template <Collective C, bool Commutative, bool InPlace, class T>
void check_choice(const T& topo, const Problem& problem)
{
  using Mask = detail::ChoiceMask<C, T, Commutative, InPlace>;
  using W = typename Mask::W;
  STATIC_REQUIRE(detail::use_compiled_choice<C, T, Commutative, InPlace>);
  constexpr auto mine = detail::candidates_for<C, T, Commutative, InPlace>();
  const Selection want = detail::select_among<false>(mine, topo, default_cost_model, problem);
  const std::size_t j = detail::compiled_select(C, W(topo), default_cost_model, problem, Mask::allowed);
  REQUIRE(j < Mask::size);
  CHECK(((Mask::allowed >> j) & 1) == 1);
  CHECK(detail::choice_facts<C>[j].name == want.name);
  detail::BuiltSchedule kept;
  const detail::ErasedSchedule& erased = detail::compiled_schedule(C, j, W(topo), problem, kept);
  visit_algorithm(mine, want.index, [&](auto a) {
    const auto s = a.schedule(topo, problem);
    using S = std::remove_cvref_t<decltype(s)>;
    REQUIRE(erased.ref().visit == &detail::visit_thunk<S>);
    REQUIRE(erased.ref().same != nullptr);
    CHECK(erased.ref().same(&s, erased.ref().object));
    CHECK(erased.ref().steps == s.num_steps());
    CHECK(erased.ref().scratch_blocks == s.scratch_blocks());
    detail::BuiltSchedule built;
    const detail::ChosenAlgorithm<C, W> chosen(j, built);
    CHECK(chosen.name == a.name);
    CHECK(chosen.pieces(topo.size()) == a.pieces(topo.size()));
    CHECK(chosen.output_everywhere == a.output_everywhere);
    CHECK(chosen.input_may_alias_output == a.input_may_alias_output);
  });
}

template <Collective C, class T>
void check_collective(const T& topo)
{
  const std::size_t p = topo.size();
  for (const double m : {1.0, 1000.0, 1048576.0})
    for (const std::size_t root : {std::size_t{0}, p - 1}) {
      CAPTURE(collective_name(C), p, m, root);
      const Problem base{.m = m, .root = root};
      check_choice<C, true, false>(topo, base);
      if constexpr (C == Collective::reduce || C == Collective::reduce_scatter || C == Collective::allreduce ||
                    C == Collective::scan) {
        Problem p2 = base;
        p2.commutative = false;
        check_choice<C, false, false>(topo, p2);
        p2.in_place = true;
        if constexpr (decltype(boost::hana::length(detail::candidates_for<C, T, false, true>()))::value != 0)
          check_choice<C, false, true>(topo, p2);
      }
      if constexpr (C == Collective::shift) {
        Problem p3 = base;
        p3.q = static_cast<std::ptrdiff_t>(p / 2 + 1);
        check_choice<C, true, false>(topo, p3);
      }
    }
}

template <class T>
void check_every_collective(const T& topo)
{
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (check_collective<all_collectives[I]>(topo), ...);
  }(std::make_index_sequence<all_collectives.size()>{});
}

} // namespace

TEST_CASE("compiled choice: the same pick and schedule as the header path, every collective", "[separate]")
{
  check_every_collective(Ring<4>{});
  check_every_collective(Ring<>{5});
  check_every_collective(Ring<8>{});
  check_every_collective(Mesh<2, 3>{});
  check_every_collective(Mesh<>{4, 4});
  check_every_collective(Torus<2, 2, 2>{});
  check_every_collective(Hypercube<3>{});
  check_every_collective(Hypercube<>::of_dims(4));
}

TEST_CASE("compiled choice: a topology without an all-dynamic twin in the library takes the header path",
          "[separate]")
{
  STATIC_REQUIRE(!detail::use_compiled_choice<Collective::allreduce, Torus<2, 2, 2, 2>, true, false>);
  STATIC_REQUIRE(detail::use_compiled_choice<Collective::allreduce, Torus<2, 2, 2>, true, false>);
}
