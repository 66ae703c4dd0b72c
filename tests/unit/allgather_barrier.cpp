// collectives::allgather with every algorithm against the serial reference (every p to 64,
// sizes 0, 1, 7 and 4096, char, double and Particle, meshes, tori and hypercubes, static
// topologies and their dynamic twins, in place); collectives::barrier as a real barrier
// (no rank leaves before every rank has arrived); and, for one algorithm of each
// collective, the messages a RecordingEndpoint logs against what the schedule promises.

#include <catch2/catch.hpp>

#include "../support/failures.hpp"
#include "../support/harness.hpp"
#include "../support/recording.hpp"
#include "../support/sweeps.hpp"

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

/// Calls f(tag) for every allgather algorithm that fits topo (recursive doubling on a
/// static size that is not a power of two is a compile error).
template <class Topo, class F>
void for_each_allgather(const Topo& topo, F f)
{
  namespace alg = allgather_algorithm;
  f(alg::ring);
  if constexpr (detail::may_be_power_of_two<Topo>)
    if (detail::is_power_of_two(topo.size())) f(alg::recursive_doubling);
  f(alg::bruck);
  if constexpr (product_topology<Topo>) f(alg::dimensional);
  f(alg::automatic);
}

/// On this rank: allgather of m values of T with alg, out of place (into a receive range
/// one element longer, whose last element must stay) and in place.
template <class T, class Comm, class Alg>
void check_allgather(Comm& comm, std::size_t m, Alg alg, Failures& bad, bool in_place = true)
{
  const std::size_t r = comm.rank(), p = comm.size();
  auto want = gathered<T>(p, m);
  const auto send = values<T>(r, m);
  std::vector<T> recv(p * m + 1, poison<T>());
  if constexpr (std::is_same_v<Alg, allgather_algorithm::Default>) allgather(comm, send, recv);
  else allgather(comm, send, recv, alg);
  const std::string what = std::string(Alg::name) + " on " + type_name<T>() + ": p = " + std::to_string(p) +
                           ", m = " + std::to_string(m) + ", wrong on rank " + std::to_string(r);
  want.push_back(poison<T>());
  if (recv != want) bad.push_back("allgather(" + what);
  want.pop_back();
  if (!in_place) return;
  // In place: rank r's block starts as block r of the buffer; the others hold poison.
  std::vector<T> buf(p * m, poison<T>());
  std::copy(send.begin(), send.end(), buf.begin() + static_cast<std::ptrdiff_t>(r * m));
  if constexpr (std::is_same_v<Alg, allgather_algorithm::Default>) allgather(comm, buf);
  else allgather(comm, buf, alg);
  if (buf != want) bad.push_back("allgather in place(" + what);
}

template <class T, class Topo>
void check_all(const Topo& topo, std::size_t m, bool in_place = true)
{
  report(run_on(topo, [&](auto& comm) {
    Failures bad;
    for_each_allgather(topo, [&](auto alg) { check_allgather<T>(comm, m, alg, bad, in_place); });
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

TEST_CASE("allgather: meshes, tori and hypercubes; static topologies and their dynamic twins", "[allgather]")
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
      barrier(comm, alg);
      for (std::size_t q = 0; q < p; ++q)
        if (flags[k * p + q].load(std::memory_order_relaxed) != 1)
          bad.push_back(std::string("barrier(") + Alg::name + "): p = " + std::to_string(p) + ", round " +
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
  for (std::size_t p : {1, 2, 3, 5, 8, 13, 32}) {
    INFO("p = " << p);
    report(barrier_rounds(p, 4, barrier_algorithm::dissemination));
    report(barrier_rounds(p, 4, barrier_algorithm::allreduce));
  }
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

/// A chunked vector (Chunks) in the caller's buffers, repeated in scratch.
struct Chunked {
  const detail::Chunks* c;
  BlockLayout operator()(Buffer b) const { return b == Buffer::scratch ? c->repeated() : c->layout(); }
};

/// Runs body(comm) on p ranks over RecordingEndpoints and compares each rank's log with
/// expected_log(schedule, rank, layout, elem).
template <class S, class Layout, class Body>
void check_recorded(const char* what, std::size_t p, const S& schedule, Layout layout, std::size_t elem, Body body)
{
  INFO(what << ", p = " << p);
  const auto got = record_on(Ring<>{p}, body);
  std::size_t messages = 0;
  for (std::size_t r = 0; r < p; ++r) {
    INFO("rank " << r);
    CHECK(got[r].log == expected_log(schedule, r, layout, elem));
    messages += got[r].log.size();
  }
  CHECK((p == 1 || messages > 0));
}

} // namespace

TEST_CASE("recording: every collective sends exactly its schedule's messages", "[recording]")
{
  for (std::size_t p : {1, 6, 8}) {
    const Ring<> ring{p};
    const std::size_t n = 11, root = p / 2;
    const detail::Chunks by_p(n, p), by_pow2(n, pow2_floor(p));
    check_recorded("broadcast(scatter_allgather)", p, broadcast_scatter_allgather_schedule(p, root), Chunked{&by_p},
                   sizeof(double), [&](auto& comm) {
                     std::vector<double> buf(n, 1.0);
                     broadcast(comm, buf, root, broadcast_algorithm::scatter_allgather);
                   });
    check_recorded("scatter(binomial)", p, ScatterTreeSchedule(p, ring_shape(p), root), Uniform{{n}}, sizeof(Particle),
                   [&](auto& comm) {
                     const std::vector<Particle> send(comm.rank() == root ? p * n : 0, poison<Particle>());
                     std::vector<Particle> recv(n);
                     scatter(comm, send, recv, root, scatter_algorithm::binomial);
                   });
    check_recorded("gather(ring)", p, GatherRingSchedule(p, root), Uniform{{n}}, sizeof(char), [&](auto& comm) {
      const std::vector<char> send(n, 'x');
      std::vector<char> recv(comm.rank() == root ? p * n : 0);
      gather(comm, send, recv, root, gather_algorithm::ring);
    });
    auto reduce_long = [&](auto& comm) {
      const std::vector<int> send(n, 2);
      std::vector<int> recv(n);
      reduce(comm, send, recv, [](int a, int b) { return a - b; }, root, reduce_algorithm::reduce_scatter_gather);
    };
    if (detail::is_power_of_two(p))
      check_recorded("reduce(reduce_scatter_gather), halving", p, reduce_scatter_gather_halving(p, root, false),
                     Chunked{&by_p}, sizeof(int), reduce_long);
    else
      check_recorded("reduce(reduce_scatter_gather), pairwise", p, reduce_scatter_gather_pairwise(p, root, false),
                     Chunked{&by_p}, sizeof(int), reduce_long);
    check_recorded("reduce(binomial), commutative", p, ReduceTreeSchedule(p, ring_shape(p), root, true), Uniform{{n}},
                   sizeof(int), [&](auto& comm) {
                     const std::vector<int> send(n, 2);
                     std::vector<int> recv(n);
                     reduce(comm, send, recv, std::plus<int>{}, root, reduce_algorithm::binomial);
                   });
    check_recorded("allreduce(rabenseifner)", p, allreduce_rabenseifner_schedule(ring, false, true), Chunked{&by_pow2},
                   sizeof(double), [&](auto& comm) {
                     const std::vector<double> send(n, 0.5);
                     std::vector<double> recv(n);
                     allreduce(comm, send, recv, std::plus<double>{}, allreduce_algorithm::rabenseifner);
                   });
    check_recorded("reduce_scatter(pairwise)", p, ReduceScatterPairwiseSchedule<Ring<>>(ring, false), Uniform{{3}},
                   sizeof(long), [&](auto& comm) {
                     const std::vector<long> send(3 * p, 1);
                     std::vector<long> recv(3);
                     reduce_scatter(comm, send, recv, [](long a, long b) { return a * 3 + b; },
                                    reduce_scatter_algorithm::pairwise);
                   });
    check_recorded("allgather(bruck)", p, AllgatherBruckSchedule<Ring<>>(ring), Uniform{{n}}, sizeof(double),
                   [&](auto& comm) {
                     const std::vector<double> send(n, 1.0);
                     std::vector<double> recv(p * n);
                     allgather(comm, send, recv, allgather_algorithm::bruck);
                   });
    check_recorded("exscan(recursive_doubling)", p, ScanDoublingSchedule<Ring<>>(ring, true, false), Uniform{{n}},
                   sizeof(int), [&](auto& comm) {
                     const std::vector<int> send(n, 1);
                     std::vector<int> recv(n);
                     exscan(comm, send, recv, [](int a, int b) { return a - b; }, scan_algorithm::recursive_doubling);
                   });
    check_recorded("barrier(dissemination)", p, AllgatherBruckSchedule<Ring<>>(ring), Uniform{{0}}, 1,
                   [&](auto& comm) { barrier(comm); });
  }
}
