// Fault injection on the threads transport (FaultyEndpoint, transport/faulty.hpp):
//  - every collective, with every algorithm of the registry that fits (and the default),
//    equals a serial reference while each exchange() is delayed at random, its requests
//    are passed on in a random order (per-peer order kept) and its message pieces are cut
//    at random element boundaries -- timing and request order are the transport's freedom,
//    not the algorithm's, so no result may depend on them;
//  - a rank that throws at a chosen exchange releases every other rank with RankFailed
//    naming it, within a second (a bound on a hang, not a benchmark), and Team::run
//    rethrows the InjectedFault.
// Dynamic topologies only (Ring<>, Mesh<>, Hypercube<>) and int elements, so every front
// end and schedule is instantiated once per topology family.

#include "../support/registry.hpp"

#include <collectives/collectives.hpp>
#include <collectives/transport/faulty.hpp>
#include <collectives/transport/threads.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

using namespace collectives;
using collectives::testing::for_each_fitting_and_default;
using collectives::testing::mesh_shape;
using collectives::testing::name_of;

namespace {

const std::size_t team_sizes[] = {1, 2, 3, 4, 5, 8};
/// Elements per block: none, a few (eager), and more than either default eager limit (512 B
/// with a core per rank, 4 KiB with more ranks than cores: single copy).
const std::size_t block_sizes[] = {0, 3, 1100};
constexpr int guard = -77777;

/// The disturbances of run number `seed`.
Faults disturbances(std::uint64_t seed)
{
  return Faults{.seed = seed, .max_delay_us = 150, .permute = true, .split = true};
}

/// Calls f(topology, label) for each topology family of p nodes: a ring, the squarest 2-D
/// mesh, and for a power of two the hypercube.
template <class F>
void for_each_topology(std::size_t p, F&& f)
{
  f(Ring<>{p}, "ring");
  const auto [rows, cols] = mesh_shape(p);
  f(Mesh<>{rows, cols}, "mesh " + std::to_string(rows) + "x" + std::to_string(cols));
  if (std::has_single_bit(p)) f(Hypercube<>::of_dims(static_cast<std::size_t>(std::countr_zero(p))), "hypercube");
}

/// Runs check(comm, rank) on every rank of a team of p over a FaultyEndpoint and returns
/// whether every rank returned true.
template <class Topo, class F>
bool faulty_team(std::size_t p, const Topo& topo, std::uint64_t seed, F&& check)
{
  threads::Team team(p);
  std::vector<char> ok(p, 0);
  team.run([&](threads::Endpoint& ep) {
    FaultyEndpoint faulty(ep, disturbances(seed));
    Communicator comm{faulty, topo};
    ok[ep.rank()] = check(comm, ep.rank()) ? 1 : 0;
  });
  for (char c : ok)
    if (c == 0) return false;
  return true;
}

/// Rank r's element i: distinct, small enough that sums over 8 ranks stay far from overflow.
int value(std::size_t r, std::size_t i) { return static_cast<int>(r * 100000 + i * 3 + 1); }

std::vector<int> contribution(std::size_t r, std::size_t n)
{
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value(r, i);
  return v;
}

/// Sum of ranks first..last of contribution(r, n).
std::vector<int> sum_of(std::size_t first, std::size_t last, std::size_t n)
{
  std::vector<int> s(n, 0);
  for (std::size_t r = first; r <= last; ++r)
    for (std::size_t i = 0; i < n; ++i) s[i] += value(r, i);
  return s;
}

/// Runs body(topo, alg, p, m, seed, label) -> bool for every p, topology, fitting
/// algorithm (and the default) and block size; CHECKs each and returns how many ran.
template <Collective C, class Body>
std::size_t sweep(Body&& body, bool exclusive = false)
{
  std::size_t runs = 0;
  std::uint64_t seed = 1000 * static_cast<std::uint64_t>(C) + (exclusive ? 500 : 0);
  for (std::size_t p : team_sizes)
    for_each_topology(p, [&](const auto& topo, const std::string& label) {
      Problem problem;
      problem.exclusive = exclusive;
      for_each_fitting_and_default<C>(topo, problem, [&](auto alg) {
        for (std::size_t m : block_sizes) {
          ++seed;
          INFO(collective_name(C) << (exclusive ? " (exclusive)" : "") << " " << name_of(alg) << " on " << label
                                  << ", p = " << p << ", m = " << m << ", seed " << seed);
          CHECK(body(topo, alg, p, m, seed));
          ++runs;
        }
      });
    });
  return runs;
}

} // namespace

TEST_CASE("faults: broadcast under delays and permuted requests", "[hardening][faults]")
{
  const auto runs = sweep<Collective::broadcast>([](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      bool ok = true;
      for (std::size_t root : {std::size_t{0}, p - 1, p / 2}) {
        std::vector<int> b = me == root ? contribution(root, m) : std::vector<int>(m, guard);
        testing::call_with(broadcast, alg, comm, b, root);
        ok = ok && b == contribution(root, m);
      }
      return ok;
    });
  });
  CHECK(runs > 100);
}

TEST_CASE("faults: reduce under delays and permuted requests", "[hardening][faults]")
{
  const auto runs = sweep<Collective::reduce>([](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      bool ok = true;
      const std::size_t n = p * m;
      for (std::size_t root : {std::size_t{0}, p - 1, p / 2}) {
        const auto x = contribution(me, n);
        std::vector<int> r(n, guard);
        testing::call_with(reduce, alg, comm, x, r, std::plus<>{}, root);
        // Other ranks' receive buffers are not touched.
        ok = ok && r == (me == root ? sum_of(0, p - 1, n) : std::vector<int>(n, guard));
      }
      return ok;
    });
  });
  CHECK(runs > 100);
}

TEST_CASE("faults: allgather under delays and permuted requests", "[hardening][faults]")
{
  const auto runs = sweep<Collective::allgather>([](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      std::vector<int> all(p * m, guard);
      testing::call_with(allgather, alg, comm, contribution(me, m), all);
      for (std::size_t j = 0; j < p; ++j)
        for (std::size_t k = 0; k < m; ++k)
          if (all[j * m + k] != value(j, k)) return false;
      return true;
    });
  });
  CHECK(runs > 100);
}

TEST_CASE("faults: reduce_scatter under delays and permuted requests", "[hardening][faults]")
{
  const auto runs = sweep<Collective::reduce_scatter>([](const auto& topo, auto alg, std::size_t p, std::size_t m,
                                                         auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      const std::size_t n = p * m;
      std::vector<int> r(m, guard);
      testing::call_with(reduce_scatter, alg, comm, contribution(me, n), r, std::plus<>{});
      const auto total = sum_of(0, p - 1, n);
      for (std::size_t k = 0; k < m; ++k)
        if (r[k] != total[me * m + k]) return false;
      return true;
    });
  });
  CHECK(runs > 100);
}

TEST_CASE("faults: allreduce under delays and permuted requests", "[hardening][faults]")
{
  const auto runs = sweep<Collective::allreduce>([](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      const std::size_t n = p * m + 1; // not a multiple of p
      std::vector<int> r(n, guard);
      testing::call_with(allreduce, alg, comm, contribution(me, n), r, std::plus<>{});
      return r == sum_of(0, p - 1, n);
    });
  });
  CHECK(runs > 100);
}

TEST_CASE("faults: scan and exscan under delays and permuted requests", "[hardening][faults]")
{
  const auto runs = sweep<Collective::scan>([](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      const std::size_t n = p * m + 1;
      std::vector<int> r(n, guard);
      testing::call_with(scan, alg, comm, contribution(me, n), r, std::plus<>{});
      return r == sum_of(0, me, n);
    });
  });
  CHECK(runs > 100);
  const auto exruns = sweep<Collective::scan>(
    [](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
      return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
        const std::size_t n = p * m + 1;
        std::vector<int> r(n, guard);
        testing::call_with(exscan, alg, comm, contribution(me, n), r, std::plus<>{});
        // Rank 0's receive buffer is left untouched.
        return r == (me == 0 ? std::vector<int>(n, guard) : sum_of(0, me - 1, n));
      });
    },
    true);
  CHECK(exruns > 100);
}

TEST_CASE("faults: scatter and gather under delays and permuted requests", "[hardening][faults]")
{
  const auto runs = sweep<Collective::scatter>([](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      bool ok = true;
      for (std::size_t root : {std::size_t{0}, p - 1, p / 2}) {
        const auto src = me == root ? contribution(root, p * m) : std::vector<int>{};
        std::vector<int> got(m, guard);
        testing::call_with(scatter, alg, comm, src, got, root);
        for (std::size_t k = 0; k < m; ++k) ok = ok && got[k] == value(root, me * m + k);
      }
      return ok;
    });
  });
  CHECK(runs > 100);
  const auto gruns = sweep<Collective::gather>([](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      bool ok = true;
      for (std::size_t root : {std::size_t{0}, p - 1, p / 2}) {
        // Only the root passes a receive buffer (the others may use theirs as staging).
        std::vector<int> g(me == root ? p * m : 0, guard);
        testing::call_with(gather, alg, comm, contribution(me, m), g, root);
        if (me == root)
          for (std::size_t j = 0; j < p; ++j)
            for (std::size_t k = 0; k < m; ++k) ok = ok && g[j * m + k] == value(j, k);
      }
      return ok;
    });
  });
  CHECK(gruns > 100);
}

TEST_CASE("faults: alltoall and alltoallv under delays and permuted requests", "[hardening][faults]")
{
  const auto runs = sweep<Collective::alltoall>([](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      std::vector<int> s(p * m), r(p * m, guard);
      for (std::size_t j = 0; j < p; ++j)
        for (std::size_t k = 0; k < m; ++k) s[j * m + k] = value(me, j * m + k);
      testing::call_with(alltoall, alg, comm, s, r);
      for (std::size_t j = 0; j < p; ++j)
        for (std::size_t k = 0; k < m; ++k)
          if (r[j * m + k] != value(j, me * m + k)) return false;
      return true;
    });
  });
  CHECK(runs > 100);
  const auto vruns = sweep<Collective::alltoallv>([](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      // Rank i sends (i + 2 j) % 3 * m elements to rank j.
      std::vector<std::size_t> sc(p), rc(p);
      for (std::size_t j = 0; j < p; ++j) {
        sc[j] = (me + 2 * j) % 3 * m;
        rc[j] = (j + 2 * me) % 3 * m;
      }
      std::vector<int> s;
      for (std::size_t j = 0; j < p; ++j)
        for (std::size_t k = 0; k < sc[j]; ++k) s.push_back(value(me, j * 4 * m + k));
      std::size_t total = 0;
      for (std::size_t c : rc) total += c;
      std::vector<int> r(total, guard);
      testing::call_with(alltoallv, alg, comm, s, sc, r, rc);
      std::size_t at = 0;
      for (std::size_t j = 0; j < p; ++j)
        for (std::size_t k = 0; k < rc[j]; ++k)
          if (r[at++] != value(j, me * 4 * m + k)) return false;
      return true;
    });
  });
  CHECK(vruns > 100);
}

TEST_CASE("faults: shift under delays and permuted requests", "[hardening][faults]")
{
  const auto runs = sweep<Collective::shift>([](const auto& topo, auto alg, std::size_t p, std::size_t m, auto seed) {
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t me) {
      bool ok = true;
      for (std::ptrdiff_t q : {std::ptrdiff_t{1}, std::ptrdiff_t{-2}, static_cast<std::ptrdiff_t>(p) + 3}) {
        std::vector<int> got(m, guard);
        testing::call_with(shift, alg, comm, contribution(me, m), got, q);
        const auto sp = static_cast<std::ptrdiff_t>(p);
        const auto from = static_cast<std::size_t>(((static_cast<std::ptrdiff_t>(me) - q) % sp + sp) % sp);
        ok = ok && got == contribution(from, m);
      }
      return ok;
    });
  });
  CHECK(runs > 100);
}

TEST_CASE("faults: barrier under delays and permuted requests", "[hardening][faults]")
{
  // No rank leaves a barrier before every rank has entered it: each rank counts itself in
  // before the barrier and finds all p counted after it (three barriers in a row).
  const auto runs = sweep<Collective::barrier>([](const auto& topo, auto alg, std::size_t p, std::size_t, auto seed) {
    std::atomic<std::size_t> arrived{0};
    return faulty_team(p, topo, seed, [&](auto& comm, std::size_t) {
      bool ok = true;
      for (std::size_t round = 1; round <= 3; ++round) {
        arrived.fetch_add(1);
        testing::call_with(barrier, alg, comm);
        ok = ok && arrived.load() == round * p;
        testing::call_with(barrier, alg, comm); // nobody counts the next round before all have looked
      }
      return ok;
    });
  });
  CHECK(runs > 50);
}

// ---------------------------------------------------------------------------------------
// A failing rank

namespace {

struct FailureOutcome {
  bool injected = false;      ///< Team::run rethrew the InjectedFault
  std::size_t fault_rank = 0; ///< the rank it names
  std::string what;
  double seconds = 0;
  std::vector<std::string> seen; ///< per rank: "InjectedFault", "RankFailed <r>", "none", "other"
};

/// Runs `calls` on a team of p where rank fail_rank throws at its exchange fail_step.
template <class Topo, class Calls>
FailureOutcome run_failing(std::size_t p, const Topo& topo, std::size_t fail_rank, std::size_t fail_step,
                           Calls&& calls)
{
  FailureOutcome out;
  out.seen.assign(p, "none");
  threads::Team team(p);
  const auto start = std::chrono::steady_clock::now();
  try {
    team.run([&](threads::Endpoint& ep) {
      Faults f = disturbances(fail_rank * 31 + fail_step);
      f.fail_rank = fail_rank;
      f.fail_step = fail_step;
      FaultyEndpoint faulty(ep, f);
      Communicator comm{faulty, topo};
      try {
        calls(comm, ep.rank());
      } catch (const InjectedFault&) {
        out.seen[ep.rank()] = "InjectedFault";
        throw;
      } catch (const RankFailed& e) {
        out.seen[ep.rank()] = "RankFailed " + std::to_string(e.failed_rank());
        throw;
      } catch (...) {
        out.seen[ep.rank()] = "other";
        throw;
      }
    });
  } catch (const InjectedFault& e) {
    out.injected = true;
    out.fault_rank = e.rank();
    out.what = e.what();
  } catch (const std::exception& e) {
    out.what = e.what();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace

TEST_CASE("faults: a rank failing at an exchange releases every other rank within a second",
          "[hardening][faults][failure]")
{
  // A long sequence of calls (more exchanges than any fail_step below), large messages so
  // that senders wait for their receivers (single copy) as well as small eager ones.
  auto calls = [](auto& comm, std::size_t me) {
    const std::size_t p = comm.size();
    for (std::size_t m : {std::size_t{4}, std::size_t{3000}}) {
      std::vector<int> x = contribution(me, p * m), r(p * m);
      allreduce(comm, x, r, std::plus<>{});
      alltoall(comm, x, r);
      std::vector<int> b(m, static_cast<int>(me));
      broadcast(comm, b, p - 1);
      barrier(comm);
      reduce(comm, x, r, std::plus<>{}, 0);
      scan(comm, x, r, std::plus<>{});
    }
  };
  std::size_t cases = 0;
  for (std::size_t p : {2, 3, 5, 8})
    for (std::size_t fail_rank : {std::size_t{0}, p - 1, p / 2})
      for (std::size_t fail_step : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{7}}) {
        INFO("p = " << p << ", rank " << fail_rank << " fails at its exchange " << fail_step);
        const FailureOutcome o = run_failing(p, Ring<>{p}, fail_rank, fail_step, calls);
        INFO("run() threw: " << o.what);
        CHECK(o.injected);
        CHECK(o.fault_rank == fail_rank);
        CHECK(o.seconds < 1.0);
        for (std::size_t r = 0; r < p; ++r) {
          INFO("rank " << r << " saw " << o.seen[r]);
          if (r == fail_rank) CHECK(o.seen[r] == "InjectedFault");
          // Every other rank was released, naming the failed rank (none finished normally:
          // the sequence has collectives that need every rank after the failure).
          else CHECK(o.seen[r] == "RankFailed " + std::to_string(fail_rank));
        }
        ++cases;
      }
  CHECK(cases == 4 * 3 * 4);
}

TEST_CASE("faults: a failing rank on a mesh and a hypercube is reported the same way", "[hardening][faults][failure]")
{
  auto calls = [](auto& comm, std::size_t me) {
    const std::size_t p = comm.size();
    for (int round = 0; round < 4; ++round) {
      std::vector<int> x = contribution(me, 2000 * p), r(2000 * p);
      allgather(comm, std::span<const int>(x).first(2000), r);
      reduce_scatter(comm, x, std::span<int>(r).first(2000), std::plus<>{});
    }
  };
  const FailureOutcome mesh = run_failing(6, Mesh<>{2, 3}, 4, 2, calls);
  CHECK(mesh.injected);
  CHECK(mesh.fault_rank == 4);
  CHECK(mesh.seconds < 1.0);
  for (std::size_t r = 0; r < 6; ++r) CHECK(mesh.seen[r] == (r == 4 ? "InjectedFault" : "RankFailed 4"));
  const FailureOutcome cube = run_failing(8, Hypercube<>::of_dims(3), 7, 1, calls);
  CHECK(cube.injected);
  CHECK(cube.fault_rank == 7);
  CHECK(cube.seconds < 1.0);
  for (std::size_t r = 0; r < 8; ++r) CHECK(cube.seen[r] == (r == 7 ? "InjectedFault" : "RankFailed 7"));
}

namespace {
/// An endpoint with nothing beyond the concept.
struct BareEndpoint {
  std::size_t rank() const { return 0; }
  std::size_t size() const { return 1; }
  void exchange(std::span<const SendRequest>, std::span<const RecvRequest>) {}
};
template <class X>
concept numbers_calls = requires(X& x) { x.begin_call(); };
template <class X>
concept suggests_cost_model = requires(const X& x) { x.cost_model(); };
} // namespace

TEST_CASE("faults: FaultyEndpoint passes on what its endpoint offers", "[hardening][faults]")
{
  using B = FaultyEndpoint<BareEndpoint>;
  STATIC_REQUIRE(endpoint<B>);
  STATIC_REQUIRE(!combines_on_receive_v<B>);
  STATIC_REQUIRE(!numbers_calls<B>);
  STATIC_REQUIRE(!suggests_cost_model<B>);

  using F = FaultyEndpoint<threads::Endpoint>;
  STATIC_REQUIRE(endpoint<F>);
  STATIC_REQUIRE(combines_on_receive_v<F>);
  STATIC_REQUIRE(numbers_calls<F>);
  STATIC_REQUIRE(suggests_cost_model<F>);
  STATIC_REQUIRE(std::same_as<decltype(std::declval<const F&>().cost_model()), CostModel>);
  // A communicator over it selects with the team's model, as over the bare endpoint.
  threads::Team team(9);
  std::vector<char> same(9, 0);
  team.run([&](threads::Endpoint& ep) {
    F faulty(ep, Faults{});
    Communicator a{faulty, Ring<>{9}};
    Communicator b{ep, Ring<>{9}};
    same[ep.rank()] = a.cost_model().t_s == b.cost_model().t_s && a.cost_model().t_w == b.cost_model().t_w ? 1 : 0;
  });
  for (char c : same) CHECK(c == 1);
  // Counting: a failure at exchange 2 means exchanges 0 and 1 went through.
  threads::Team two(2);
  std::vector<std::size_t> done(2, 0);
  try {
    two.run([&](threads::Endpoint& ep) {
      F faulty(ep, Faults{.fail_rank = 1, .fail_step = 2});
      Communicator comm{faulty, Ring<>{2}};
      try {
        for (int i = 0; i < 5; ++i) barrier(comm, barrier_algorithm::dissemination);
      } catch (...) {
        done[ep.rank()] = faulty.exchanges();
        throw;
      }
    });
    FAIL("run() returned");
  } catch (const InjectedFault& e) {
    CHECK(e.rank() == 1);
    CHECK(e.step() == 2);
  }
  CHECK(done[1] == 3); // the third exchange threw
  CHECK(done[0] == 3); // rank 0 was released in its third
}
