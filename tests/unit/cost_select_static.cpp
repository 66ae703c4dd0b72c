// Compile-time select() over each collective's whole list of algorithms on Hypercube<10>,
// Ring<1024> and Mesh<32,32> (issue 12, "a compile-time budget"): it must fit the compilers'
// default constant-evaluation limits, which this TU is compiled with. The static_asserts
// prove that it runs at compile time and finds a candidate; the test case checks that it
// names the algorithm select() names at run time on the dynamic twin.

#include <catch2/catch.hpp>

#include <collectives/cost.hpp>

#include <cstddef>
#include <string_view>
#include <utility>

using namespace collectives;

namespace {

constexpr CostModel model{1e-6, 1e-9, 5e-8, 1e-10};
constexpr Problem problem{1024, 0, 3, true, false};

template <Collective C, class T>
constexpr Selection at_compile_time = select<C>(T{}, model, problem);

template <class T, std::size_t... I>
constexpr bool all_found(std::index_sequence<I...>)
{
  return (at_compile_time<all_collectives[I], T>.found() && ...);
}

constexpr auto every_collective = std::make_index_sequence<all_collectives.size()>{};

static_assert(all_found<Hypercube<10>>(every_collective), "compile-time select on Hypercube<10>");
static_assert(all_found<Ring<1024>>(every_collective), "compile-time select on Ring<1024>");
static_assert(all_found<Mesh<32, 32>>(every_collective), "compile-time select on Mesh<32, 32>");

template <class T, class D, std::size_t... I>
void check_same_as_run_time(const D& dynamic, std::index_sequence<I...>)
{
  auto check = [&](auto c) {
    constexpr Collective C = decltype(c)::value;
    const Selection run_time = select<C>(dynamic, model, problem);
    INFO(collective_name(C) << " on " << dynamic.size() << " ranks");
    CHECK(std::string_view(at_compile_time<C, T>.name) == std::string_view(run_time.name));
    CHECK(at_compile_time<C, T>.time == run_time.time);
  };
  (check(std::integral_constant<Collective, all_collectives[I]>{}), ...);
}

} // namespace

TEST_CASE("select at compile time on p = 1024 names what select names at run time", "[cost][select][static]")
{
  check_same_as_run_time<Hypercube<10>>(Hypercube<>::of_dims(10), every_collective);
  check_same_as_run_time<Ring<1024>>(Ring<>{1024}, every_collective);
  check_same_as_run_time<Mesh<32, 32>>(Mesh<>{32, 32}, every_collective);
}
