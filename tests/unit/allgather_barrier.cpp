// collectives::allgather with every algorithm against the serial reference (every p to 64,
// sizes 0, 1, 7 and 4096, char, double and Particle, meshes, tori and hypercubes, static
// topologies and their dynamic twins, in place); collectives::barrier as a real barrier
// (no rank leaves before every rank has arrived); and, for one algorithm of each
// collective, the messages a RecordingEndpoint logs against what the schedule promises.

#include <catch2/catch.hpp>

#include "../support/failures.hpp"
#include "../support/harness.hpp"
#include "../support/recording.hpp"
#include "../support/registry.hpp"
#include "../support/sweeps.hpp"

#include <collectives/collective/blocks.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace collectives;
using namespace collectives::testing;
using Catch::Matchers::Contains;

namespace {

constexpr Collective AG = Collective::allgather;

/// What went wrong, for the failure message.
template <class T, class Alg>
std::string allgather_what(Alg alg, std::size_t p, std::size_t m, std::size_t r)
{
  return name_of(alg) + " on " + type_name<T>() + ": p = " + std::to_string(p) + ", m = " + std::to_string(m) +
         ", wrong on rank " + std::to_string(r);
}

/// On this rank: allgather of m values of T with alg, out of place, into a receive range
/// one element longer, whose last element must stay.
template <class T, class Comm, class Alg>
void check_allgather(Comm& comm, std::size_t m, Alg alg, Failures& bad)
{
  const std::size_t r = comm.rank(), p = comm.size();
  auto want = gathered<T>(p, m);
  const auto send = values<T>(r, m);
  std::vector<T> recv(p * m + 1, poison<T>());
  call_with(allgather, alg, comm, send, recv);
  want.push_back(poison<T>());
  if (recv != want) bad.push_back("allgather(" + allgather_what<T>(alg, p, m, r));
}

/// On this rank: allgather in place: rank r's block starts as block r of the buffer; the
/// others hold poison.
template <class T, class Comm, class Alg>
void check_allgather_in_place(Comm& comm, std::size_t m, Alg alg, Failures& bad)
{
  const std::size_t r = comm.rank(), p = comm.size();
  const auto send = values<T>(r, m);
  std::vector<T> buf(p * m, poison<T>());
  std::copy(send.begin(), send.end(), buf.begin() + static_cast<std::ptrdiff_t>(r * m));
  call_with(allgather, alg, comm, buf);
  if (buf != gathered<T>(p, m)) bad.push_back("allgather in place(" + allgather_what<T>(alg, p, m, r));
}

/// On this rank: send and recv the same buffer: the send range is the first m elements of
/// the receive range, then block r of it (as if send had been copied first).
template <class T, class Comm, class Alg>
void check_allgather_aliased(Comm& comm, std::size_t m, Alg alg, Failures& bad)
{
  const std::size_t r = comm.rank(), p = comm.size();
  std::vector<T> buf(p * m, poison<T>());
  const auto mine = values<T>(r, m);
  std::copy(mine.begin(), mine.end(), buf.begin());
  call_with(allgather, alg, comm, std::span<const T>(buf.data(), m), buf);
  if (buf != gathered<T>(p, m)) bad.push_back("allgather aliased(" + allgather_what<T>(alg, p, m, r));
  // The send range as block r of the receive range (MPI_IN_PLACE's layout, through the
  // out-of-place call).
  std::vector<T> at_r(p * m, poison<T>());
  std::copy(mine.begin(), mine.end(), at_r.begin() + static_cast<std::ptrdiff_t>(r * m));
  call_with(allgather, alg, comm, std::span<const T>(at_r.data() + r * m, m), at_r);
  if (at_r != gathered<T>(p, m)) bad.push_back("allgather aliased at block r(" + allgather_what<T>(alg, p, m, r));
}

/// Every allgather algorithm that fits topo (read from the registry) and the default, out
/// of place, then (in_place) every one that may run in place.
template <class T, class Topo>
void check_all(const Topo& topo, std::size_t m, bool in_place = true)
{
  report(run_on(topo, [&](auto& comm) {
    Failures bad;
    for_each_fitting_and_default<AG>(topo, Problem{}, [&](auto alg) { check_allgather<T>(comm, m, alg, bad); });
    if (in_place)
      for_each_fitting_and_default<AG, true, true>(topo, Problem{},
                                                   [&](auto alg) { check_allgather_in_place<T>(comm, m, alg, bad); });
    return bad;
  }));
}

} // namespace

COLLECTIVES_SWEEP_TEST_CASES("allgather: every algorithm matches the reference", "[allgather]", [](std::size_t p) {
  check_all<char>(Ring<>{p}, 3, p % 4 == 0); // in place on every fourth p
})

TEST_CASE("allgather: sizes 0, 1, 7 and 4096 of char, double and Particle", "[allgather]")
{
  for (std::size_t p : {1, 2, 3, 4, 5, 7, 8, 12}) {
    INFO("p = " << p);
    for (std::size_t m : {0, 1, 7}) {
      check_all<char>(Ring<>{p}, m);
      check_all<double>(Ring<>{p}, m);
      check_all<Particle>(Ring<>{p}, m);
    }
  }
  // Long blocks: the default takes the ring above 64 KiB when p is not a power of two.
  for (std::size_t p : {3, 4, 6}) {
    INFO("p = " << p << ", m = 4096");
    check_all<double>(Ring<>{p}, 4096);
    check_all<Particle>(Ring<>{p}, 4096);
  }
}

TEST_CASE("allgather: meshes, tori and hypercubes, static topologies and their dynamic twins", "[allgather]")
{
  check_all<double>(Mesh<>{3, 4}, 5);
  check_all<double>(Mesh<>{1, 5}, 5);
  check_all<double>(Torus{2, 3, 2}, 5);
  check_all<double>(Torus{3, 1, 4}, 5);
  check_all<double>(Hypercube<>::of_dims(4), 5);
  check_all<double>(Hypercube<>::of_dims(0), 5);
  // Static topologies and their dynamic twins (with double, shared with the above).
  check_all<Particle>(Ring<5>{}, 3);
  check_all<Particle>(Ring<>{5}, 3);
  check_all<Particle>(Mesh<3, 4>{}, 3);
  check_all<double>(Mesh<>{3, 4}, 3);
  check_all<Particle>(Hypercube<3>{}, 3);
  check_all<double>(Hypercube<>::of_dims(3), 3);
}

TEST_CASE("allgather: std::array and std::span buffers on a static ring", "[allgather]")
{
  const auto got = run_on(Ring<3>{}, [](auto& comm) {
    const std::array<int, 2> send{static_cast<int>(comm.rank()), static_cast<int>(10 + comm.rank())};
    std::array<int, 6> recv{};
    allgather(comm, send, recv, allgather_algorithm::bruck);
    std::array<int, 6> buf{};
    buf[2 * comm.rank()] = send[0];
    buf[2 * comm.rank() + 1] = send[1];
    allgather(comm, std::span<int, 6>(buf));
    return recv == std::array<int, 6>{0, 10, 1, 11, 2, 12} && buf == recv;
  });
  for (std::size_t r = 0; r < 3; ++r) CHECK(got[r]);
}

TEST_CASE("allgather: send and receive the same buffer", "[allgather][alias]")
{
  std::size_t ran = 0;
  for (std::size_t p : {1, 2, 3, 4, 6, 8}) {
    INFO("p = " << p);
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> mesh{rows, cols};
    report(run_on(mesh, [&](auto& comm) {
      Failures bad;
      for_each_fitting_and_default<AG>(mesh, Problem{}, [&](auto alg) {
        for (std::size_t m : {1, 5}) {
          check_allgather_aliased<double>(comm, m, alg, bad);
          check_allgather_aliased<Particle>(comm, m, alg, bad);
        }
      });
      return bad;
    }));
    ran += fitting_count<AG>(mesh);
  }
  CHECK(ran > 6);
}

TEST_CASE("allgather: an element type that is not default-constructible", "[allgather][nodefault]")
{
  std::size_t ran = 0;
  for (std::size_t p : {1, 2, 3, 4, 8}) {
    INFO("p = " << p);
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> mesh{rows, cols};
    for (std::size_t m : {1, 3, 600}) {
      std::vector<NoDefault> want;
      for (std::size_t j = 0; j < p; ++j) {
        const auto block = no_default_values(j, m);
        want.insert(want.end(), block.begin(), block.end());
      }
      report(run_on(mesh, [&](auto& comm) {
        Failures bad;
        const std::size_t r = comm.rank();
        for_each_fitting_and_default<AG>(mesh, Problem{}, [&](auto alg) {
          std::vector<NoDefault> recv(p * m, NoDefault{-1, -1.0});
          call_with(allgather, alg, comm, no_default_values(r, m), recv);
          if (recv != want)
            bad.push_back("allgather(" + name_of(alg) + ") of NoDefault, m = " + std::to_string(m) + ", rank " +
                          std::to_string(r));
        });
        for_each_fitting_and_default<AG, true, true>(mesh, Problem{}, [&](auto alg) {
          std::vector<NoDefault> buf(p * m, NoDefault{-1, -1.0});
          const auto mine = no_default_values(r, m);
          std::copy(mine.begin(), mine.end(), buf.begin() + static_cast<std::ptrdiff_t>(r * m));
          call_with(allgather, alg, comm, buf);
          if (buf != want)
            bad.push_back("allgather(" + name_of(alg) + ") of NoDefault in place, m = " + std::to_string(m) +
                          ", rank " + std::to_string(r));
        });
        return bad;
      }));
    }
    ran += fitting_count<AG>(mesh);
  }
  CHECK(ran > 5);
}

TEST_CASE("blocks: the per-rank blocks of an allgather result", "[allgather][blocks]")
{
  constexpr std::size_t p = 5, m = 3;
  const auto got = run_on(Ring<>{p}, [](auto& comm) {
    const auto send = values<int>(comm.rank(), m);
    std::vector<int> recv(p * m + 2, poison<int>()); // the last 2 elements are in no block
    allgather(comm, send, std::span<int>(recv).first(p * m));
    std::vector<std::vector<int>> out;
    for (std::span<int> b : blocks(recv, p)) out.emplace_back(b.begin(), b.end());
    // Writable spans into the range, and a const range gives spans of const.
    auto bs = blocks(recv, p);
    bs[1][0] = 42;
    const std::vector<int>& cr = recv;
    static_assert(std::is_same_v<decltype(blocks(cr, p)[0]), std::span<const int>>);
    out.push_back({recv[m], static_cast<int>(std::ranges::size(bs)), static_cast<int>(bs[p - 1].size())});
    return out;
  });
  for (std::size_t r = 0; r < p; ++r) {
    INFO("rank " << r);
    REQUIRE(got[r].size() == p + 1);
    for (std::size_t j = 0; j < p; ++j) CHECK(got[r][j] == values<int>(j, m));
    CHECK(got[r][p] == std::vector<int>{42, static_cast<int>(p), static_cast<int>(m)});
  }
  // count that does not divide the size: floor(size / count) elements each.
  std::vector<double> v(10, 1.0);
  const auto bs = blocks(v, 3);
  CHECK(std::ranges::size(bs) == 3);
  CHECK(bs[2].size() == 3);
  CHECK(bs[2].data() == v.data() + 6);
}

TEST_CASE("allgather: bad sizes throw std::invalid_argument and write nothing", "[allgather]")
{
  struct Outcome {
    std::string what;
    bool untouched = false;
  };
  auto refused = [](std::size_t p, std::size_t ns, std::size_t nr, bool in_place, const std::string& words) {
    const auto got = run_on(Ring<>{p}, [&](auto& comm) {
      Outcome o;
      const std::vector<double> send(ns, 1.5);
      std::vector<double> recv(nr, poison<double>());
      try {
        if (in_place) allgather(comm, recv, allgather_algorithm::ring);
        else allgather(comm, send, recv);
        o.what = "nothing thrown";
      } catch (const std::invalid_argument& e) {
        o.what = e.what();
      }
      o.untouched = recv == std::vector<double>(nr, poison<double>());
      return o;
    });
    for (std::size_t r = 0; r < p; ++r) {
      INFO("rank " << r);
      CHECK_THAT(got[r].what, Contains(words));
      CHECK(got[r].untouched);
    }
  };
  refused(4, 3, 11, false, "collectives::allgather: the receive range has 11 elements, needs p*m = 12");
  refused(4, 0, 10, true, "collectives::allgather (in place): the buffer has 10 elements, not a multiple of p = 4");
  const auto got = run_on(Ring<>{6}, [](auto& comm) {
    std::string what = "nothing thrown";
    try {
      const std::vector<int> send(2, 1);
      std::vector<int> recv(12);
      allgather(comm, send, recv, allgather_algorithm::recursive_doubling);
    } catch (const std::invalid_argument& e) {
      what = e.what();
    }
    return what;
  });
  for (const auto& what : got)
    CHECK_THAT(what, Contains("collectives::allgather(recursive_doubling): needs a power-of-two number of ranks"));
}

// ---------------------------------------------------------------------------------------
// barrier
// ---------------------------------------------------------------------------------------

namespace {

/// `rounds` barriers on p ranks with `alg`. Before round k's barrier every rank raises its
/// flag for round k (one rank, different each round, dawdles first); after it, every rank
/// must see every flag of round k raised. Returns the violations seen.
template <class Alg>
std::vector<Failures> barrier_rounds(std::size_t p, std::size_t rounds, Alg alg)
{
  const auto flags = std::make_unique<std::atomic<int>[]>(p * rounds);
  for (std::size_t i = 0; i < p * rounds; ++i) flags[i].store(0);
  return run_on(Ring<>{p}, [&](auto& comm) {
    Failures bad;
    const std::size_t r = comm.rank();
    for (std::size_t k = 0; k < rounds; ++k) {
      if (r == (k * 7 + 3) % p) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      flags[k * p + r].store(1, std::memory_order_relaxed);
      call_with(barrier, alg, comm);
      for (std::size_t q = 0; q < p; ++q)
        if (flags[k * p + q].load(std::memory_order_relaxed) != 1)
          bad.push_back("barrier(" + name_of(alg) + "): p = " + std::to_string(p) + ", round " +
                        std::to_string(k) + ": rank " + std::to_string(r) + " left before rank " + std::to_string(q) +
                        " arrived");
    }
    return bad;
  });
}

} // namespace

TEST_CASE("barrier: no rank leaves before every rank has arrived", "[barrier]")
{
  // Relaxed atomics on purpose: the barrier's own messages must order the flag stores
  // before the loads (the transport synchronises through acquire/release on its channels).
  std::size_t ran = 0;
  for (std::size_t p : {1, 2, 3, 5, 8, 13, 32}) {
    INFO("p = " << p);
    for_each_fitting_and_default<Collective::barrier>(Ring<>{p}, Problem{}, [&](auto alg) {
      INFO("algorithm " << name_of(alg));
      report(barrier_rounds(p, 4, alg));
      ++ran;
    });
  }
  CHECK(ran == 7 * (std::tuple_size_v<algorithm_types<Collective::barrier>> + 1));
  // The default is dissemination.
  const auto got = run_on(Mesh<2, 3>{}, [](auto& comm) {
    barrier(comm);
    barrier(comm, barrier_algorithm::allreduce);
    return true;
  });
  CHECK(got.size() == 6);
}

// ---------------------------------------------------------------------------------------
// Recorded messages against the schedules.
// ---------------------------------------------------------------------------------------

namespace {

/// For every algorithm of collective C that fits a ring of p for `problem` (read from the
/// registry; the operator commutative or not): runs body(comm, alg) on p ranks over
/// RecordingEndpoints and compares each rank's log with expected_log of the algorithm's
/// schedule, every buffer laid out as layout_of(alg), elements of `elem` bytes. Returns
/// how many algorithms it checked.
template <Collective C, bool Commutative = true, class LayoutOf, class Body>
std::size_t check_recorded(std::size_t p, Problem problem, LayoutOf layout_of, std::size_t elem, Body body)
{
  const Ring<> ring{p};
  std::size_t ran = 0;
  problem.commutative = Commutative;
  for_each_fitting<C, Commutative>(ring, problem, [&](auto a) {
    INFO(collective_name(C) << "(" << name_of(a) << "), p = " << p);
    const auto got = record_on(ring, [&](auto& comm) { body(comm, a); });
    const auto schedule = a.schedule(ring, problem);
    const Uniform layout{layout_of(a)};
    std::size_t messages = 0;
    for (std::size_t r = 0; r < p; ++r) {
      INFO("rank " << r);
      CHECK(got[r].log == expected_log(schedule, r, layout, elem));
      messages += got[r].log.size();
    }
    CHECK((p == 1 || messages > 0));
    ++ran;
  });
  return ran;
}

} // namespace

TEST_CASE("recording: every collective sends exactly its schedule's messages", "[recording]")
{
  // Every algorithm of every collective's list that fits the ring.
  for (std::size_t p : {1, 6, 8}) {
    INFO("p = " << p);
    const std::size_t n = 11, root = p / 2;
    // The layout of a whole message cut into the algorithm's pieces, and of blocks of n.
    const auto pieces = [&](auto a) { return detail::message_layout(a, n, p); };
    const auto block = [&](auto) { return BlockLayout::uniform(n); };
    std::size_t ran = 0;
    ran += check_recorded<Collective::broadcast>(p, Problem{.root = root}, pieces, sizeof(double),
                                                  [&](auto& comm, auto a) {
                                                    std::vector<double> buf(n, 1.0);
                                                    broadcast(comm, buf, root, a);
                                                  });
    ran += check_recorded<Collective::scatter>(p, Problem{.root = root}, block, sizeof(Particle),
                                                [&](auto& comm, auto a) {
                                                  const std::vector<Particle> send(comm.rank() == root ? p * n : 0,
                                                                                   poison<Particle>());
                                                  std::vector<Particle> recv(n);
                                                  scatter(comm, send, recv, root, a);
                                                });
    ran += check_recorded<Collective::gather>(p, Problem{.root = root}, block, sizeof(char), [&](auto& comm, auto a) {
      const std::vector<char> send(n, 'x');
      std::vector<char> recv(comm.rank() == root ? p * n : 0);
      gather(comm, send, recv, root, a);
    });
    ran += check_recorded<Collective::reduce, false>(p, Problem{.root = root}, pieces, sizeof(int),
                                                      [&](auto& comm, auto a) {
                                                        const std::vector<int> send(n, 2);
                                                        std::vector<int> recv(n);
                                                        reduce(comm, send, recv, [](int x, int y) { return x - y; },
                                                               root, a);
                                                      });
    ran += check_recorded<Collective::reduce>(p, Problem{.root = root}, pieces, sizeof(int), [&](auto& comm, auto a) {
      const std::vector<int> send(n, 2);
      std::vector<int> recv(n);
      reduce(comm, send, recv, std::plus<int>{}, root, a);
    });
    ran += check_recorded<Collective::allreduce>(p, Problem{}, pieces, sizeof(double), [&](auto& comm, auto a) {
      const std::vector<double> send(n, 0.5);
      std::vector<double> recv(n);
      allreduce(comm, send, recv, std::plus<double>{}, a);
    });
    ran += check_recorded<Collective::reduce_scatter, false>(
      p, Problem{}, [](auto) { return BlockLayout::uniform(3); }, sizeof(long), [&](auto& comm, auto a) {
        const std::vector<long> send(3 * p, 1);
        std::vector<long> recv(3);
        reduce_scatter(comm, send, recv, [](long x, long y) { return x * 3 + y; }, a);
      });
    ran += check_recorded<Collective::allgather>(p, Problem{}, block, sizeof(double), [&](auto& comm, auto a) {
      const std::vector<double> send(n, 1.0);
      std::vector<double> recv(p * n);
      allgather(comm, send, recv, a);
    });
    ran += check_recorded<Collective::scan, false>(p, Problem{.exclusive = true}, block, sizeof(int),
                                                    [&](auto& comm, auto a) {
                                                      const std::vector<int> send(n, 1);
                                                      std::vector<int> recv(n);
                                                      exscan(comm, send, recv, [](int x, int y) { return x - y; }, a);
                                                    });
    ran += check_recorded<Collective::barrier>(p, Problem{}, [](auto) { return BlockLayout::uniform(0); }, 1,
                                                [&](auto& comm, auto a) { barrier(comm, a); });
    CHECK(ran >= 10);
  }
}

TEST_CASE("recording: the endpoint names the algorithm that ran", "[recording]")
{
  // algorithm() is the latest step's: empty before any, then the named algorithm's.
  const std::size_t p = 4;
  std::vector<std::string> before(p), named(p);
  threads::Team team{p};
  team.run([&](threads::Endpoint& ep) {
    RecordingEndpoint<threads::Endpoint> rec(ep);
    Communicator<RecordingEndpoint<threads::Endpoint>, Ring<>> comm(rec, Ring<>{p});
    before[ep.rank()] = std::string(rec.algorithm());
    std::vector<double> in(8, 1.0), out(8);
    allreduce(comm, in, out, std::plus<>{}, allreduce_algorithm::ring);
    named[ep.rank()] = std::string(rec.algorithm());
  });
  for (std::size_t r = 0; r < p; ++r) {
    CHECK(before[r].empty());
    CHECK(named[r] == "ring");
  }
}
