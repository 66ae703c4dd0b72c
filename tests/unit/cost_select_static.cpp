// Compile-time select() over a collective's whole list of algorithms on Hypercube<10>,
// Ring<1024> and Mesh<32,32> (issue 12, "a compile-time budget"), within g++'s default
// constant-evaluation limit (-fconstexpr-ops-limit=2^25), which this TU is compiled with.
// The estimate visits one rank per class of each step (the schedules' Symmetry), so a
// selection costs a few million operations instead of steps x p visits. The static_asserts
// prove that it runs at compile time and finds a candidate; the test case checks that it
// names what select() names at run time on the dynamic twin, with the same time.
// Not yet within the limit (the sum over their candidates exceeds it): broadcast, reduce
// and scan on Mesh<32,32>.

#include <catch2/catch.hpp>

#include <collectives/cost.hpp>

#include <cstddef>
#include <string_view>

using namespace collectives;

namespace {

constexpr CostModel model{1e-6, 1e-9, 5e-8, 1e-10};
constexpr Problem problem{1024, 0, 3, true, false};

template <Collective C, class T>
constexpr Selection at_compile_time = select<C>(T{}, model, problem);

using H = Hypercube<10>;
using R = Ring<1024>;
using M = Mesh<32, 32>;

static_assert(at_compile_time<Collective::broadcast, H>.found() && at_compile_time<Collective::broadcast, R>.found());
static_assert(at_compile_time<Collective::reduce, H>.found() && at_compile_time<Collective::reduce, R>.found());
static_assert(at_compile_time<Collective::scan, H>.found() && at_compile_time<Collective::scan, R>.found());
static_assert(at_compile_time<Collective::allgather, H>.found() && at_compile_time<Collective::allgather, R>.found() &&
              at_compile_time<Collective::allgather, M>.found());
static_assert(at_compile_time<Collective::reduce_scatter, H>.found() &&
              at_compile_time<Collective::reduce_scatter, R>.found() &&
              at_compile_time<Collective::reduce_scatter, M>.found());
static_assert(at_compile_time<Collective::allreduce, H>.found() && at_compile_time<Collective::allreduce, R>.found() &&
              at_compile_time<Collective::allreduce, M>.found());
static_assert(at_compile_time<Collective::scatter, H>.found() && at_compile_time<Collective::scatter, R>.found() &&
              at_compile_time<Collective::scatter, M>.found());
static_assert(at_compile_time<Collective::gather, H>.found() && at_compile_time<Collective::gather, R>.found() &&
              at_compile_time<Collective::gather, M>.found());
static_assert(at_compile_time<Collective::alltoall, H>.found() && at_compile_time<Collective::alltoall, R>.found() &&
              at_compile_time<Collective::alltoall, M>.found());
static_assert(at_compile_time<Collective::shift, H>.found() && at_compile_time<Collective::shift, R>.found() &&
              at_compile_time<Collective::shift, M>.found());
static_assert(at_compile_time<Collective::alltoallv, H>.found() && at_compile_time<Collective::alltoallv, R>.found() &&
              at_compile_time<Collective::alltoallv, M>.found());
static_assert(at_compile_time<Collective::barrier, H>.found() && at_compile_time<Collective::barrier, R>.found() &&
              at_compile_time<Collective::barrier, M>.found());

/// The compile-time pick of C on T against select() at run time on `dynamic`.
template <Collective C, class T, class D>
void check(const D& dynamic)
{
  const Selection run_time = select<C>(dynamic, model, problem);
  INFO(collective_name(C) << " on " << dynamic.size() << " ranks");
  CHECK(std::string_view(at_compile_time<C, T>.name) == std::string_view(run_time.name));
  CHECK(at_compile_time<C, T>.time == run_time.time);
}

template <Collective C, bool OnMesh = true>
void check_everywhere()
{
  check<C, H>(Hypercube<>::of_dims(10));
  check<C, R>(Ring<>{1024});
  if constexpr (OnMesh) check<C, M>(Mesh<>{32, 32});
}

} // namespace

TEST_CASE("select at compile time on p = 1024 names what select names at run time", "[cost][select][static]")
{
  check_everywhere<Collective::broadcast, false>();
  check_everywhere<Collective::reduce, false>();
  check_everywhere<Collective::scan, false>();
  check_everywhere<Collective::allgather>();
  check_everywhere<Collective::reduce_scatter>();
  check_everywhere<Collective::allreduce>();
  check_everywhere<Collective::scatter>();
  check_everywhere<Collective::gather>();
  check_everywhere<Collective::alltoall>();
  check_everywhere<Collective::shift>();
  check_everywhere<Collective::alltoallv>();
  check_everywhere<Collective::barrier>();
}
