// collectives::alltoall, the front end: every algorithm against the serial reference, over
// sizes, element types, static and dynamic topologies and range types; the messages it
// sends against what its schedule promises; and its refusal of bad input.

#include <catch2/catch.hpp>

#include "../support/harness.hpp"
#include "../support/recording.hpp"
#include "../support/registry.hpp"
#include "../support/sanitizers.hpp"
#include "../support/sweeps.hpp"

#include <array>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

using namespace collectives;
using namespace collectives::testing;
using Catch::Matchers::Contains;

namespace {

namespace alg = collectives::alltoall_algorithm;
constexpr Collective C = Collective::alltoall;

/// Calls f(tag) for every algorithm of alltoall's list that fits `topo` (read from the
/// registry: on Ring<> the dimensional algorithm is left out by type, the power-of-two ones
/// by value), then f(automatic) for the call without an algorithm.
template <class Topo, class F>
void for_each_algorithm(const Topo& topo, F f)
{
  for_each_fitting_and_default<C>(topo, Problem{}, f);
}

/// The schedule alltoall runs for `tag` on `topo` with blocks of `bytes` (the default:
/// the one select() names under the communicator's default model).
template <class Tag, class Topo, class F>
void with_schedule(Tag tag, const Topo& topo, std::size_t bytes, F f)
{
  const Problem problem{.m = static_cast<double>(bytes) / 8};
  if constexpr (is_default<Tag>)
    with_selected<C>(topo, default_cost_model, problem, [&](auto chosen) { f(chosen.schedule(topo, problem)); });
  else
    f(tag.schedule(topo, problem));
}

/// alltoall_matches_reference with the algorithm's name in the failure message; the
/// default is the call without an algorithm.
template <class T, class Topo, class Tag>
void check_reference(const Topo& topo, std::size_t m, Tag tag)
{
  INFO("algorithm " << name_of(tag) << ", p = " << topo.size() << ", m = " << m << ", sizeof(T) = " << sizeof(T));
  CHECK(alltoall_matches_reference<T>(topo, m, tag));
}

} // namespace

// Every algorithm of the list (and the default), each its own test cases, on a ring of p
// (a mesh of p for the dimensional one); a power-of-two algorithm at the p that allow it.
COLLECTIVES_ALGORITHM_SWEEP_TEST_CASES("alltoall: every algorithm matches the reference, m = 1", "[alltoall]",
                                       algorithm_types_and_default<Collective::alltoall>, [](std::size_t p) {
                                         const TestType alg{};
                                         const auto topo = sweep_topology<TestType>(p);
                                         if (runs_on(alg, topo)) check_reference<double>(topo, 1, alg);
                                       })

TEST_CASE("alltoall: empty and odd-sized blocks of char, double and Particle", "[alltoall]")
{
  // (Under a sanitizer: without 4, 7, 12 and 16; powers of two, primes and composites stay.)
  const std::vector<std::size_t> ps = sanitized ? std::vector<std::size_t>{1, 2, 3, 5, 8, 17}
                                                : std::vector<std::size_t>{1, 2, 3, 4, 5, 7, 8, 12, 16, 17};
  for (std::size_t p : ps)
    for (std::size_t m : {0, 7})
      for_each_algorithm(Ring<>{p}, [&](auto tag) {
        check_reference<char>(Ring<>{p}, m, tag);
        check_reference<double>(Ring<>{p}, m, tag);
        check_reference<Particle>(Ring<>{p}, m, tag);
      });
}

TEST_CASE("alltoall: long blocks (m = 4096)", "[alltoall]")
{
  for (std::size_t p : {2, 3, 4, 8})
    for_each_algorithm(Ring<>{p}, [&](auto tag) { check_reference<double>(Ring<>{p}, 4096, tag); });
  check_reference<Particle>(Ring<>{3}, 4096, alg::ring_two_way);
}

TEST_CASE("alltoall: a static topology and its dynamic twin", "[alltoall]")
{
  // Mesh<2, 4>: every algorithm of the list fits (eight ranks, two dimensions), so all of
  // them and the default are instantiated on a static topology once in this family.
  std::size_t ran = 0;
  for_each_algorithm(Mesh<2, 4>{}, [&](auto tag) {
    ++ran;
    check_reference<Particle>(Mesh<2, 4>{}, 3, tag);
    check_reference<Particle>(Mesh<>{2, 4}, 3, tag);
  });
  CHECK(ran == std::tuple_size_v<algorithm_types<C>> + 1);
}

TEST_CASE("alltoall: no algorithm named, dynamic sizes", "[alltoall]")
{
  // The three-argument call on dynamic topologies, p a power of two or not. (Static sizes
  // that are not a power of two, for every collective: tests/unit/registry.cpp.)
  for (std::size_t p : {6, 8}) check_reference<char>(Ring<>{p}, 2, automatic);
  check_reference<char>(Mesh<>{4, 4}, 2, automatic);
  check_reference<char>(Hypercube<>::of_dims(2), 2, automatic);
}

TEST_CASE("alltoall: std::array and std::span buffers", "[alltoall]")
{
  // On the family's static twin, Mesh<2, 4>: static extents on both sides.
  constexpr std::size_t p = 8, m = 3;
  SECTION("std::array on a static mesh")
  {
    const auto got = run_on(Mesh<2, 4>{}, [](auto& comm) {
      std::array<int, p * m> send{}, recv{};
      for (std::size_t i = 0; i < send.size(); ++i) send[i] = make_value<int>(comm.rank(), i);
      recv.fill(poison<int>());
      alltoall(comm, send, recv, alg::ring);
      return std::vector<int>(recv.begin(), recv.end());
    });
    for (std::size_t r = 0; r < p; ++r) CHECK(got[r] == alltoall_reference<int>(p, m, r));
  }
  SECTION("static-extent spans, a longer receive range left untouched past p*m")
  {
    const auto got = run_on(Mesh<2, 4>{}, [](auto& comm) {
      auto send = alltoall_input<double>(p, m, comm.rank());
      std::vector<double> recv(p * m + 5, poison<double>());
      alltoall(comm, std::span<const double, p * m>(send.data(), p * m), std::span<double, p * m + 5>(recv));
      return recv;
    });
    for (std::size_t r = 0; r < p; ++r) {
      auto want = alltoall_reference<double>(p, m, r);
      want.resize(p * m + 5, poison<double>());
      CHECK(got[r] == want);
    }
  }
  SECTION("dynamic spans on a dynamic mesh")
  {
    const auto got = run_on(Mesh<>{2, 4}, [](auto& comm) {
      auto send = alltoall_input<Particle>(p, m, comm.rank());
      std::vector<Particle> recv(p * m, poison<Particle>());
      alltoall(comm, std::span<const Particle>(send), std::span<Particle>(recv), alg::pairwise_xor);
      return recv;
    });
    for (std::size_t r = 0; r < p; ++r) CHECK(got[r] == alltoall_reference<Particle>(p, m, r));
  }
}

TEST_CASE("alltoall: the messages sent are exactly the schedule's", "[alltoall][recording]")
{
  using T = Particle;
  constexpr std::size_t m = 5;
  for (std::size_t p : {6, 8}) {
    const Ring<> topo{p};
    for_each_algorithm(topo, [&](auto tag) {
      INFO("algorithm " << name_of(tag) << ", p = " << p);
      std::vector<char> correct(p, 0);
      const auto got = record_on(topo, [&](auto& comm) {
        const auto send = alltoall_input<T>(p, m, comm.rank());
        std::vector<T> recv(p * m, poison<T>());
        call_with(alltoall, tag, comm, send, recv);
        correct[comm.rank()] = recv == alltoall_reference<T>(p, m, comm.rank()) ? 1 : 0;
      });
      with_schedule(tag, topo, m * sizeof(T), [&](const auto& s) {
        for (std::size_t r = 0; r < p; ++r) {
          INFO("rank " << r);
          CHECK(correct[r] == 1);
          CHECK(got[r].steps == s.num_steps());
          CHECK(got[r].log == expected_log(s, r, Uniform{{m}}, sizeof(T)));
        }
      });
    });
  }
}

namespace {

/// Per-rank outcome of a call that must throw before touching anything.
struct Refusal {
  bool threw = false;
  std::string message;
  bool recv_untouched = false;
};

/// Runs alltoall(comm, send, recv, tag) on a dynamic ring of p ranks with the given send and
/// receive sizes; each rank notes whether it threw std::invalid_argument, and whether its
/// receive buffer still holds the poison fill.
template <class Topo, class Tag>
std::vector<Refusal> refusals(const Topo& topo, std::size_t send_size, std::size_t recv_size, Tag tag)
{
  return run_on(topo, [&](auto& comm) {
    Refusal out;
    std::vector<double> send(send_size, 1.5);
    std::vector<double> recv(recv_size, poison<double>());
    try {
      call_with(alltoall, tag, comm, send, recv);
    } catch (const std::invalid_argument& e) {
      out.threw = true;
      out.message = e.what();
    }
    out.recv_untouched = recv == std::vector<double>(recv_size, poison<double>());
    return out;
  });
}

void check_refused(const std::vector<Refusal>& got, const std::string& words)
{
  for (std::size_t r = 0; r < got.size(); ++r) {
    INFO("rank " << r << ": " << got[r].message);
    CHECK(got[r].threw);
    CHECK_THAT(got[r].message, Contains("collectives::alltoall"));
    CHECK_THAT(got[r].message, Contains(words));
    CHECK(got[r].recv_untouched);
  }
}

} // namespace

TEST_CASE("alltoall: bad input throws std::invalid_argument and writes nothing", "[alltoall]")
{
  SECTION("send size not a multiple of p")
  {
    for_each_algorithm(Ring<>{4}, [](auto tag) {
      INFO("algorithm " << name_of(tag));
      check_refused(refusals(Ring<>{4}, 10, 12, tag), "not p*m for p = 4");
    });
  }
  SECTION("receive range too small")
  {
    for_each_algorithm(Ring<>{4}, [](auto tag) {
      INFO("algorithm " << name_of(tag));
      check_refused(refusals(Ring<>{4}, 12, 11, tag), "the receive range has 11 elements, needs 12");
    });
  }
  SECTION("a static topology with dynamic buffers is checked at run time")
  {
    for_each_algorithm(Mesh<2, 4>{}, [](auto tag) {
      INFO("algorithm " << name_of(tag));
      check_refused(refusals(Mesh<2, 4>{}, 4, 8, tag), "not p*m for p = 8");
    });
  }
  SECTION("pairwise_xor and standard_exchange on six ranks")
  {
    // The message names the call, the algorithm, the requirement and p (fits() decides,
    // before anything is sent).
    check_refused(refusals(Ring<>{6}, 12, 12, alg::pairwise_xor),
                  "collectives::alltoall(pairwise_xor): needs a power-of-two number of ranks (p = 6)");
    check_refused(refusals(Mesh<>{2, 3}, 6, 6, alg::standard_exchange), "(standard_exchange)");
  }
  SECTION("dimensional on a mesh of one dimension is refused at run time")
  {
    check_refused(refusals(Hypercube<>::of_dims(1), 2, 2, alg::dimensional),
                  "collectives::alltoall(dimensional): needs a topology of at least two dimensions");
  }
}
