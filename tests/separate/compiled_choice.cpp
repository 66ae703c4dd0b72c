// The compiled mode's default call (collective/chosen.hpp): on the library's rings, meshes,
// tori and hypercubes, the compiled library selects among the collective's list and
// builds the picked schedule on the topology's all-dynamic twin. End to end here: default
// calls of every collective whose front end reads an algorithm's facts (pieces,
// output_everywhere, input_may_alias_output) against serial references, the algorithm a
// default call runs against select()'s, and the schedules a communicator keeps. The pick
// and schedule against the header path's: compiled_choice_picks.cpp.

#if !defined(COLLECTIVES_SEPARATE_COMPILATION)
#error "compiled_choice.cpp tests the compiled mode"
#endif

#include <collectives/collectives.hpp>

#include "../support/harness.hpp"

#include <catch2/catch.hpp>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace collectives;

namespace {

double value(std::size_t rank, std::size_t i) { return static_cast<double>((rank * 5 + i * 3) % 13); }

/// Rank `rank`'s m values.
std::vector<double> values_of(std::size_t rank, std::size_t m)
{
  std::vector<double> v(m);
  for (std::size_t i = 0; i < m; ++i) v[i] = value(rank, i);
  return v;
}

/// The element-wise sum of p ranks' values_of.
std::vector<double> sum_over(std::size_t p, std::size_t m)
{
  std::vector<double> sum(m, 0.0);
  for (std::size_t r = 0; r < p; ++r)
    for (std::size_t i = 0; i < m; ++i) sum[i] += value(r, i);
  return sum;
}

using Mesh2x3 = Mesh<2, 3>;

} // namespace

TEMPLATE_TEST_CASE("compiled choice: default calls against serial references", "[separate]", Mesh2x3, Hypercube<3>,
                   Ring<>)
{
  const TestType topo = [] {
    if constexpr (std::is_same_v<TestType, Ring<>>)
      return Ring<>{5};
    else
      return TestType{};
  }();
  const std::size_t p = topo.size();
  for (const std::size_t m : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1500}}) {
    CAPTURE(p, m);
    const std::size_t root = p - 1;
    const std::vector<bool> ok = testing::run_on(topo, [&](auto& comm) {
      const std::size_t me = comm.rank();
      bool good = true;
      const std::vector<double> mine = values_of(me, m), sum = sum_over(p, m);
      // reduce to the last rank (algorithms that leave the result everywhere borrow room
      // off the root), out of place and in place; the others' buffers stay untouched.
      std::vector<double> out(m, -1.0);
      reduce(comm, mine, out, std::plus<>{}, root);
      good = good && (me == root ? out == sum : out == std::vector<double>(m, -1.0));
      std::vector<double> buf = mine;
      reduce(comm, buf, std::plus<>{}, root);
      if (me == root) good = good && buf == sum;
      // allreduce in place.
      buf = mine;
      allreduce(comm, buf, std::plus<>{});
      good = good && buf == sum;
      // allgather: block r is rank r's contribution.
      std::vector<double> all(p * m, -1.0), want_all(p * m);
      for (std::size_t r = 0; r < p; ++r)
        for (std::size_t i = 0; i < m; ++i) want_all[r * m + i] = value(r, i);
      allgather(comm, mine, all);
      good = good && all == want_all;
      // reduce_scatter: rank me gets block me of the element-wise sum of every rank's p blocks.
      std::vector<double> blocks(p * m), part(m, -1.0), want_part(m, 0.0);
      for (std::size_t i = 0; i < p * m; ++i) blocks[i] = value(me, i);
      for (std::size_t r = 0; r < p; ++r)
        for (std::size_t i = 0; i < m; ++i) want_part[i] += value(r, me * m + i);
      reduce_scatter(comm, blocks, part, std::plus<>{});
      good = good && part == want_part;
      // gather to the root, then scatter it back out.
      std::vector<double> gathered(me == root ? p * m : 0, -1.0);
      gather(comm, mine, gathered, root);
      if (me == root) good = good && gathered == want_all;
      std::vector<double> back(m, -1.0);
      scatter(comm, gathered, back, root);
      good = good && back == mine;
      // circular shift by 2: rank me receives rank (me - 2) mod p's data.
      std::vector<double> shifted(m, -1.0), want_shift(m);
      const std::size_t from = (me + p - 2) % p; // (p >= 5 here)
      for (std::size_t i = 0; i < m; ++i) want_shift[i] = value(from, i);
      shift(comm, mine, shifted, 2);
      good = good && shifted == want_shift;
      barrier(comm);
      return good;
    });
    for (std::size_t r = 0; r < p; ++r) CHECK(ok[r]);
  }
}

TEMPLATE_TEST_CASE("compiled choice: a default call runs the algorithm select() picks", "[separate]", Mesh2x3,
                   Hypercube<3>, Ring<8>)
{
  const TestType topo{};
  const std::size_t p = topo.size();
  for (const std::size_t m : {std::size_t{1}, std::size_t{3000}, std::size_t{200000}}) {
    CAPTURE(p, m);
    std::vector<std::string> ran(3 * p), want(3 * p);
    threads::Team team{p};
    team.run([&](threads::Endpoint& ep) {
      RecordingEndpoint<threads::Endpoint> rec(ep);
      Communicator comm{rec, topo, ep.cost_model()};
      const std::size_t me = ep.rank();
      std::vector<double> in(m, 1.0), out(m);
      allreduce(comm, in, out, std::plus<>{});
      ran[3 * me] = std::string(rec.algorithm());
      want[3 * me] = std::string(select<Collective::allreduce>(topo, comm.cost_model(), {.m = comm.words(m * 8)}).name);
      reduce(comm, in, out, std::plus<>{}, p - 1);
      ran[3 * me + 1] = std::string(rec.algorithm());
      want[3 * me + 1] =
        std::string(select<Collective::reduce>(topo, comm.cost_model(), {.m = comm.words(m * 8), .root = p - 1}).name);
      std::vector<double> a(p * m, 2.0), b(p * m);
      alltoall(comm, a, b);
      ran[3 * me + 2] = std::string(rec.algorithm());
      want[3 * me + 2] = std::string(select<Collective::alltoall>(topo, comm.cost_model(), {.m = comm.words(m * 8)}).name);
    });
    CHECK(ran == want);
  }
}

TEST_CASE("compiled choice: a kept schedule is built again only for another call", "[separate]")
{
  // BuiltSchedule::get, with a counting builder: the binomial broadcast on a ring of the
  // topology's size (index 0 of broadcast's list).
  detail::BuiltSchedule kept;
  int builds = 0;
  const auto get = [&](Collective c, std::size_t index, const auto& topo,
                       const Problem& problem) -> const detail::ErasedSchedule& {
    return kept.get(c, index, topo, problem, [&](detail::ErasedSchedule& out) {
      ++builds;
      out.emplace(broadcast_algorithm::binomial.schedule(Ring<>{topo.size()}, problem));
    });
  };
  const Problem at0{.m = 8, .root = 0}, at2{.m = 8, .root = 2};
  const detail::ErasedSchedule& first = get(Collective::broadcast, 0, Ring<>{4}, at0);
  CHECK(builds == 1);
  CHECK(&get(Collective::broadcast, 0, Ring<>{4}, at0) == &first); // kept
  CHECK(builds == 1);
  CHECK(get(Collective::broadcast, 0, Ring<>{4}, at2).ref().root == 2); // another root
  CHECK(builds == 2);
  get(Collective::broadcast, 0, Ring<>{4}, at2);
  CHECK(builds == 2);
  get(Collective::broadcast, 0, Ring<>{4}, Problem{.m = 9, .root = 2}); // another size
  CHECK(builds == 3);
  get(Collective::broadcast, 0, Ring<>{8}, Problem{.m = 9, .root = 2}); // another ring
  CHECK(builds == 4);
  get(Collective::broadcast, 0, Hypercube<>::of_dims(3), Problem{.m = 9, .root = 2}); // another topology type
  CHECK(builds == 5);
  get(Collective::broadcast, 1, Hypercube<>::of_dims(3), Problem{.m = 9, .root = 2}); // another algorithm
  CHECK(builds == 6);
  get(Collective::scatter, 1, Hypercube<>::of_dims(3), Problem{.m = 9, .root = 2}); // another collective
  CHECK(builds == 7);
  // A build that throws keeps nothing: the next call builds, even for the call before.
  CHECK_THROWS_AS(kept.get(Collective::scatter, 1, Hypercube<>::of_dims(3), Problem{.m = 10, .root = 2},
                           [](detail::ErasedSchedule&) { throw std::runtime_error("no"); }),
                  std::runtime_error);
  get(Collective::scatter, 1, Hypercube<>::of_dims(3), Problem{.m = 9, .root = 2});
  CHECK(builds == 8);

  // The compiled library's compiled_schedule keeps its schedule in the BuiltSchedule given.
  detail::BuiltSchedule mine;
  const detail::ErasedSchedule& a = detail::compiled_schedule(Collective::broadcast, 0, Ring<>{4}, at0, mine);
  CHECK(a.ref().root == 0);
  const detail::ErasedSchedule& b = detail::compiled_schedule(Collective::broadcast, 0, Ring<>{4}, at2, mine);
  CHECK(&a == &b);
  CHECK(b.ref().root == 2);
  CHECK(b.ref().steps == broadcast_algorithm::binomial.schedule(Ring<>{4}, at2).num_steps());
}

TEST_CASE("compiled choice: default calls whose size and root change from call to call", "[separate]")
{
  // One communicator, so each collective's kept schedule is used again and replaced.
  const std::size_t p = 5;
  const std::vector<bool> ok = testing::run_on(Ring<>{p}, [&](auto& comm) {
    const std::size_t me = comm.rank();
    bool good = true;
    for (const std::size_t m : {std::size_t{3}, std::size_t{3}, std::size_t{2000}, std::size_t{3}, std::size_t{0}})
      for (const std::size_t root : {std::size_t{1}, std::size_t{1}, std::size_t{4}, std::size_t{0}}) {
        const std::vector<double> mine = values_of(me, m), sum = sum_over(p, m);
        std::vector<double> out(m, -1.0), data(m, -1.0);
        reduce(comm, mine, out, std::plus<>{}, root);
        good = good && (me == root ? out == sum : out == std::vector<double>(m, -1.0));
        if (me == root) data = mine;
        broadcast(comm, data, root);
        good = good && data == values_of(root, m);
        std::vector<double> all(m, -1.0);
        allreduce(comm, mine, all, std::plus<>{});
        good = good && all == sum;
      }
    return good;
  });
  for (std::size_t r = 0; r < p; ++r) CHECK(ok[r]);
}

TEST_CASE("compiled choice: a copied communicator starts without the kept schedules", "[separate]")
{
  using Comm = Communicator<threads::Endpoint, Mesh<>>;
  const Mesh<> mesh{2, 3};
  const std::size_t p = mesh.size();
  const std::vector<bool> ok = testing::run_on(mesh, [&](Comm& comm) {
    const std::vector<double> mine = values_of(comm.rank(), 7), sum = sum_over(p, 7);
    const auto sums = [&](Comm& c) {
      std::vector<double> y(7, -1.0);
      allreduce(c, mine, y, std::plus<>{});
      return y == sum;
    };
    bool good = sums(comm) && comm.context().bytes_held() >= all_collectives.size() * sizeof(detail::BuiltSchedule);
    Comm copy = comm;
    good = good && copy.context().bytes_held() == 0 && sums(copy) && sums(comm);
    // Assigned a communicator of another shape: its kept schedule was built for 3 x 2.
    Comm other(comm.endpoint(), Mesh<>{3, 2});
    good = good && sums(other);
    other = comm;
    good = good && sums(other);
    Comm moved = std::move(copy);
    return good && sums(moved);
  });
  for (std::size_t r = 0; r < p; ++r) CHECK(ok[r]);
}
