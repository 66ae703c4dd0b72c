// collectives::alltoall, the front end: every algorithm against the serial reference, over
// sizes, element types, static and dynamic topologies and range types; the messages it
// sends against what its schedule promises; and its refusal of bad input.

#include <catch2/catch.hpp>

#include "../support/harness.hpp"
#include "../support/recording.hpp"
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

/// Calls f(tag) for every alltoall algorithm this file covers that fits `topo`; the default
/// (no algorithm named) is alg::automatic. Pairwise XOR on a static size that is not a
/// power of two is a compile error, so it is skipped at compile time there.
template <class Topo, class F>
void for_each_algorithm(const Topo& topo, F f)
{
  f(alg::pairwise);
  constexpr std::size_t P = static_size_v<Topo>;
  if constexpr (P == dynamic_extent || detail::is_power_of_two(P))
    if (detail::is_power_of_two(topo.size())) f(alg::pairwise_xor);
  f(alg::ring);
  f(alg::ring_two_way);
  f(alg::automatic);
}

/// The schedule alltoall runs for `tag` on `topo` with blocks of `bytes` (the default:
/// the one select() names under the communicator's default model).
template <class Tag, class Topo, class F>
void with_schedule(Tag, const Topo& topo, std::size_t bytes, F f)
{
  if constexpr (std::is_same_v<Tag, alg::Default>) {
    const Problem problem{.m = static_cast<double>(bytes) / 8};
    const Selection pick = select<Collective::alltoall>(topo, default_cost_model, problem);
    dispatch<Collective::alltoall, Topo>(default_candidates<Collective::alltoall>(), pick.index,
                                         [&](auto chosen) { f(decltype(chosen)::schedule(topo)); });
  } else {
    f(Tag::schedule(topo));
  }
}

/// alltoall_matches_reference with the algorithm's name in the failure message.
template <class T, class Topo, class Tag>
void check_reference(const Topo& topo, std::size_t m, Tag tag)
{
  INFO("algorithm " << Tag::name << ", p = " << topo.size() << ", m = " << m << ", sizeof(T) = " << sizeof(T));
  CHECK(alltoall_matches_reference<T>(topo, m, tag));
}

} // namespace

COLLECTIVES_SWEEP_TEST_CASES("alltoall: every algorithm matches the reference, m = 1", "[alltoall]", [](std::size_t p) {
  for_each_algorithm(Ring<>{p}, [&](auto tag) { check_reference<double>(Ring<>{p}, 1, tag); });
})

TEST_CASE("alltoall: empty and odd-sized blocks of char, double and Particle", "[alltoall]")
{
  for (std::size_t p : {1, 2, 3, 4, 5, 7, 8, 12, 16, 17})
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

TEST_CASE("alltoall: static topologies and their dynamic twins", "[alltoall]")
{
  SECTION("Ring<5> and Ring<>{5}")
  {
    for_each_algorithm(Ring<5>{}, [&](auto tag) {
      check_reference<Particle>(Ring<5>{}, 3, tag);
      check_reference<Particle>(Ring<>{5}, 3, tag);
    });
  }
  SECTION("Mesh<2,4> and Mesh<>{2,4}")
  {
    for_each_algorithm(Mesh<2, 4>{}, [&](auto tag) {
      check_reference<Particle>(Mesh<2, 4>{}, 3, tag);
      check_reference<Particle>(Mesh<>{2, 4}, 3, tag);
    });
  }
  SECTION("Hypercube<3> and Hypercube<>::of_dims(3)")
  {
    for_each_algorithm(Hypercube<3>{}, [&](auto tag) {
      check_reference<Particle>(Hypercube<3>{}, 3, tag);
      check_reference<Particle>(Hypercube<>::of_dims(3), 3, tag);
    });
  }
}

TEST_CASE("alltoall: no algorithm named, static and dynamic sizes", "[alltoall]")
{
  // The three-argument call; on a static size that is not a power of two it must not
  // instantiate pairwise XOR (whose static_assert would reject it).
  auto check = [](const auto& topo) {
    const std::size_t p = topo.size(), m = 2;
    const auto got = run_on(topo, [&](auto& comm) {
      const auto send = alltoall_input<char>(p, m, comm.rank());
      std::vector<char> recv(p * m, poison<char>());
      alltoall(comm, send, recv);
      return recv;
    });
    for (std::size_t r = 0; r < p; ++r) CHECK(got[r] == alltoall_reference<char>(p, m, r));
  };
  check(Mesh<2, 3>{});
  check(Ring<5>{});
  check(Ring<8>{});
  check(Hypercube<2>{});
  check(Ring<>{6});
  check(Mesh<>{4, 4});
}

TEST_CASE("alltoall: std::array and std::span buffers", "[alltoall]")
{
  constexpr std::size_t p = 4, m = 3;
  SECTION("std::array on a static ring")
  {
    const auto got = run_on(Ring<p>{}, [](auto& comm) {
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
    const auto got = run_on(Ring<p>{}, [](auto& comm) {
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
    const auto got = run_on(Mesh<>{2, 2}, [](auto& comm) {
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
      INFO("algorithm " << decltype(tag)::name << ", p = " << p);
      std::vector<char> correct(p, 0);
      const auto got = record_on(topo, [&](auto& comm) {
        const auto send = alltoall_input<T>(p, m, comm.rank());
        std::vector<T> recv(p * m, poison<T>());
        alltoall(comm, send, recv, tag);
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
      alltoall(comm, send, recv, tag);
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
      INFO("algorithm " << decltype(tag)::name);
      check_refused(refusals(Ring<>{4}, 10, 12, tag), "not p*m for p = 4");
    });
  }
  SECTION("receive range too small")
  {
    for_each_algorithm(Ring<>{4}, [](auto tag) {
      INFO("algorithm " << decltype(tag)::name);
      check_refused(refusals(Ring<>{4}, 12, 11, tag), "the receive range has 11 elements, needs 12");
    });
  }
  SECTION("a static topology with dynamic buffers is checked at run time")
  {
    for_each_algorithm(Ring<3>{}, [](auto tag) {
      INFO("algorithm " << decltype(tag)::name);
      check_refused(refusals(Ring<3>{}, 4, 6, tag), "not p*m for p = 3");
    });
  }
  SECTION("pairwise_xor on a ring of 6")
  {
    check_refused(refusals(Ring<>{6}, 12, 12, alg::pairwise_xor), "power-of-two");
    check_refused(refusals(Mesh<>{2, 3}, 6, 6, alg::pairwise_xor), "got 6");
  }
}
