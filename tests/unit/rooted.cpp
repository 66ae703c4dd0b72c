// The rooted copy collectives, front ends: broadcast, scatter and gather with every
// algorithm against the serial reference (every p to 64, roots first, middle and last),
// over sizes 0, 1, 7 and 4096 and element types char, double and Particle; static
// topologies and their dynamic twins, static roots (root_c), and bad roots refused
// before anything is written.

#include <catch2/catch.hpp>

#include "../support/failures.hpp"
#include "../support/harness.hpp"
#include "../support/registry.hpp"
#include "../support/sanitizers.hpp"
#include "../support/sweeps.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace collectives;
using namespace collectives::testing;
using Catch::Matchers::Contains;

namespace {

std::string describe(const char* call, const std::string& alg, const char* type, std::size_t p, std::size_t n,
                     std::size_t root, std::size_t rank)
{
  return std::string(call) + "(" + alg + ") on " + type + ": p = " + std::to_string(p) + ", n = " +
         std::to_string(n) + ", root = " + std::to_string(root) + ", wrong on rank " + std::to_string(rank);
}

/// Calls f(tag) for every algorithm of collective C that fits topo (read from the
/// registry), then f(automatic) for the call without one.
template <Collective C, class Topo, class F>
void for_each_algorithm(const Topo& topo, F f)
{
  for_each_fitting_and_default<C>(topo, Problem{}, f);
}

/// On this rank: broadcast n values of T from `root` with `alg`; record a mismatch.
/// `root_arg` is the root as passed (an integer or a root_c).
template <class T, class Comm, class Root, class Alg>
void check_broadcast(Comm& comm, std::size_t n, std::size_t root, Root root_arg, Alg alg, Failures& bad)
{
  const std::size_t r = comm.rank();
  std::vector<T> buf = r == root ? values<T>(root, n) : std::vector<T>(n, poison<T>());
  call_with(broadcast, alg, comm, buf, root_arg);
  if (buf != values<T>(root, n)) bad.push_back(describe("broadcast", name_of(alg), type_name<T>(), comm.size(), n, root, r));
}

/// On this rank: scatter blocks of m values from `root`: block j of the root's send is
/// values(j); non-roots pass an empty send range.
template <class T, class Comm, class Root, class Alg>
void check_scatter(Comm& comm, std::size_t m, std::size_t root, Root root_arg, Alg alg, Failures& bad)
{
  const std::size_t r = comm.rank(), p = comm.size();
  const std::vector<T> send = r == root ? gathered<T>(p, m) : std::vector<T>{};
  std::vector<T> recv(m, poison<T>());
  call_with(scatter, alg, comm, send, recv, root_arg);
  if (recv != values<T>(r, m)) bad.push_back(describe("scatter", name_of(alg), type_name<T>(), p, m, root, r));
}

/// On this rank: gather blocks of m values (rank j's is values(j)) at `root`; non-roots
/// pass an empty receive range.
template <class T, class Comm, class Root, class Alg>
void check_gather(Comm& comm, std::size_t m, std::size_t root, Root root_arg, Alg alg, Failures& bad)
{
  const std::size_t r = comm.rank(), p = comm.size();
  const std::vector<T> send = values<T>(r, m);
  std::vector<T> recv(r == root ? p * m : 0, poison<T>());
  call_with(gather, alg, comm, send, recv, root_arg);
  if (r != root) return;
  if (recv != gathered<T>(p, m)) bad.push_back(describe("gather", name_of(alg), type_name<T>(), p, m, root, r));
}

/// Every algorithm of the three collectives with every root in roots_of(p), n values of T.
template <class T, class Topo>
void check_all(const Topo& topo, std::size_t n)
{
  const std::size_t p = topo.size();
  report(run_on(topo, [&](auto& comm) {
    Failures bad;
    for (std::size_t root : roots_of(p)) {
      for_each_algorithm<Collective::broadcast>(topo, [&](auto alg) { check_broadcast<T>(comm, n, root, root, alg, bad); });
      for_each_algorithm<Collective::scatter>(topo, [&](auto alg) { check_scatter<T>(comm, n, root, root, alg, bad); });
      for_each_algorithm<Collective::gather>(topo, [&](auto alg) { check_gather<T>(comm, n, root, root, alg, bad); });
    }
    return bad;
  }));
}

} // namespace

COLLECTIVES_SWEEP_TEST_CASES("rooted: every broadcast, scatter and gather algorithm, roots first, middle and last",
                             "[rooted]", [](std::size_t p) { check_all<char>(Ring<>{p}, 7); })

TEST_CASE("rooted: sizes 0, 1 and 7 of char, double and Particle", "[rooted]")
{
  const std::vector<std::size_t> ps = sanitized ? std::vector<std::size_t>{1, 2, 3, 5, 8, 13}
                                                : std::vector<std::size_t>{1, 2, 3, 4, 5, 8, 12, 13};
  for (std::size_t p : ps) {
    INFO("p = " << p);
    for (std::size_t n : {0, 1, 7}) {
      check_all<char>(Ring<>{p}, n);
      check_all<double>(Ring<>{p}, n);
      check_all<Particle>(Ring<>{p}, n);
    }
  }
}

TEST_CASE("rooted: long messages (4096 elements)", "[rooted]")
{
  // The broadcast default switches to scatter + all-gather at 12 KiB (p >= 8).
  const std::vector<std::size_t> ps = sanitized ? std::vector<std::size_t>{5, 8} : std::vector<std::size_t>{2, 5, 8, 9};
  for (std::size_t p : ps) {
    INFO("p = " << p << ", n = 4096");
    check_all<double>(Ring<>{p}, 4096);
  }
  check_all<Particle>(Ring<>{8}, 4096);
  check_all<char>(Ring<>{3}, 4096);
}

TEST_CASE("rooted: dimensional trees on meshes, tori and hypercubes", "[rooted]")
{
  check_all<double>(Mesh<>{3, 4}, 7);
  check_all<double>(Mesh<>{4, 3}, 7);
  check_all<double>(Mesh<>{1, 5}, 7);
  check_all<double>(Torus{2, 3, 2}, 7);
  check_all<double>(Torus{3, 1, 3}, 5);
  check_all<double>(Hypercube<>::of_dims(4), 7);
  check_all<double>(Hypercube<>::of_dims(0), 7);
  // Every root of a mesh: the phases run relative to the root's row and column.
  report(run_on(Mesh<>{3, 4}, [](auto& comm) {
    Failures bad;
    // Every algorithm that fits the mesh (the dimensional ones among them).
    for (std::size_t root = 0; root < 12; ++root) {
      for_each_fitting<Collective::broadcast>(Mesh<>{3, 4}, Problem{}, [&](auto alg) {
        check_broadcast<char>(comm, 3, root, root, alg, bad);
      });
      for_each_fitting<Collective::scatter>(Mesh<>{3, 4}, Problem{}, [&](auto alg) {
        check_scatter<char>(comm, 3, root, root, alg, bad);
      });
      for_each_fitting<Collective::gather>(Mesh<>{3, 4}, Problem{}, [&](auto alg) {
        check_gather<char>(comm, 3, root, root, alg, bad);
      });
    }
    return bad;
  }));
}

namespace {

/// Static topology Topo and its dynamic twin: every algorithm with integer roots; on the
/// static one also the static roots root_c<R> and root_c<P-1>. All with double, whose
/// dynamic-topology instantiations the tests above share (they cover char and Particle).
template <class Topo, std::size_t R, class Dynamic>
void check_twins(const Dynamic& dyn)
{
  constexpr std::size_t P = static_size_v<Topo>;
  static_assert(P != dynamic_extent && R < P);
  REQUIRE(dyn.size() == P);
  check_all<double>(Topo{}, 3);
  check_all<double>(dyn, 3);
  const Topo topo{};
  report(run_on(topo, [&](auto& comm) {
    Failures bad;
    auto each_root = [&](auto root_arg) {
      constexpr std::size_t root = decltype(root_arg)::value;
      for_each_algorithm<Collective::broadcast>(
        topo, [&](auto alg) { check_broadcast<double>(comm, 5, root, root_arg, alg, bad); });
      for_each_algorithm<Collective::scatter>(topo,
                                              [&](auto alg) { check_scatter<double>(comm, 5, root, root_arg, alg, bad); });
      for_each_algorithm<Collective::gather>(topo,
                                             [&](auto alg) { check_gather<double>(comm, 5, root, root_arg, alg, bad); });
    };
    each_root(root_c<R>);
    each_root(root_c<P - 1>);
    return bad;
  }));
}

} // namespace

TEST_CASE("rooted: static topologies, their dynamic twins and static roots", "[rooted]")
{
  SECTION("Ring<5> and Ring<>{5}") { check_twins<Ring<5>, 2>(Ring<>{5}); }
  SECTION("Mesh<3,4> and Mesh<>{3,4}") { check_twins<Mesh<3, 4>, 6>(Mesh<>{3, 4}); }
  SECTION("Hypercube<3> and Hypercube<>::of_dims(3)") { check_twins<Hypercube<3>, 5>(Hypercube<>::of_dims(3)); }
  SECTION("Ring<1>: the root is the only rank") { check_twins<Ring<1>, 0>(Ring<>{1}); }
}

TEST_CASE("rooted: std::array and std::span buffers", "[rooted]")
{
  const auto got = run_on(Ring<4>{}, [](auto& comm) {
    std::array<double, 6> buf{};
    buf.fill(comm.rank() == 3 ? 2.5 : poison<double>());
    broadcast(comm, buf, root_c<3>);
    std::array<int, 2> piece{};
    std::array<int, 8> all{};
    if (comm.rank() == 1)
      for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(10 * i);
    scatter(comm, std::span<const int>(all), std::span<int>(piece), 1, scatter_algorithm::ring);
    std::array<int, 8> back{};
    gather(comm, piece, back, root_c<2>, gather_algorithm::hypercube);
    bool ok = true;
    for (double x : buf) ok = ok && x == 2.5;
    ok = ok && piece[0] == static_cast<int>(20 * comm.rank()) && piece[1] == static_cast<int>(20 * comm.rank() + 10);
    if (comm.rank() == 2)
      for (std::size_t i = 0; i < back.size(); ++i) ok = ok && back[i] == static_cast<int>(10 * i);
    return ok;
  });
  for (std::size_t r = 0; r < 4; ++r) CHECK(got[r]);
}

TEST_CASE("rooted: send and receive the same buffer", "[rooted][alias]")
{
  // scatter: every rank passes one buffer of p*m as send and its first m elements as recv
  // (at the root they overlap: block 0 is overwritten with block `root`); gather: the first
  // m elements as send and the whole buffer as recv. As if send had been copied first.
  std::size_t ran = 0;
  for (std::size_t p : {1, 2, 3, 4, 6, 8}) {
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> mesh{rows, cols};
    constexpr std::size_t m = 3;
    report(run_on(mesh, [&](auto& comm) {
      Failures bad;
      const std::size_t r = comm.rank();
      for (std::size_t root : roots_of(p)) {
        for_each_algorithm<Collective::scatter>(mesh, [&](auto alg) {
          std::vector<Particle> buf = r == root ? gathered<Particle>(p, m) : std::vector<Particle>(p * m, poison<Particle>());
          call_with(scatter, alg, comm, buf, std::span<Particle>(buf).first(m), root);
          if (!std::equal(buf.begin(), buf.begin() + m, values<Particle>(r, m).begin()))
            bad.push_back(describe("scatter aliased", name_of(alg), "Particle", p, m, root, r));
        });
        for_each_algorithm<Collective::gather>(mesh, [&](auto alg) {
          std::vector<Particle> buf(p * m, poison<Particle>());
          const auto mine = values<Particle>(r, m);
          std::copy(mine.begin(), mine.end(), buf.begin());
          call_with(gather, alg, comm, std::span<const Particle>(buf).first(m), buf, root);
          if (r == root && buf != gathered<Particle>(p, m))
            bad.push_back(describe("gather aliased", name_of(alg), "Particle", p, m, root, r));
        });
      }
      return bad;
    }));
    ran += fitting_count<Collective::scatter>(mesh) + fitting_count<Collective::gather>(mesh);
  }
  CHECK(ran > 12);
}

TEST_CASE("rooted: broadcast of an element type that is not default-constructible", "[rooted][nodefault]")
{
  std::size_t ran = 0;
  for (std::size_t p : {1, 3, 4, 8}) {
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> mesh{rows, cols};
    for (std::size_t n : {1, 9}) {
      report(run_on(mesh, [&](auto& comm) {
        Failures bad;
        for (std::size_t root : roots_of(p))
          for_each_algorithm<Collective::broadcast>(mesh, [&](auto alg) {
            std::vector<NoDefault> buf = comm.rank() == root ? no_default_values(root, n)
                                                             : std::vector<NoDefault>(n, NoDefault{-1, -1.0});
            call_with(broadcast, alg, comm, buf, root);
            if (buf != no_default_values(root, n))
              bad.push_back(describe("broadcast", name_of(alg), "NoDefault", p, n, root, comm.rank()));
          });
        return bad;
      }));
    }
    ran += fitting_count<Collective::broadcast>(mesh);
  }
  CHECK(ran > 4);
}

TEST_CASE("rooted: the default broadcast on static Ring<5>, Mesh<2,3> and Mesh<3,3>", "[rooted][default]")
{
  // No algorithm named: the cheapest of the algorithms the static type allows.
  const auto check = [](auto topo) {
    const std::size_t p = topo.size();
    INFO("p = " << p);
    report(run_on(topo, [&](auto& comm) {
      Failures bad;
      for (std::size_t root : roots_of(p))
        for (std::size_t n : {1, 7, 4096}) {
          std::vector<double> buf = comm.rank() == root ? values<double>(root, n) : std::vector<double>(n, poison<double>());
          broadcast(comm, buf, root);
          if (buf != values<double>(root, n)) bad.push_back(describe("broadcast", "default", "double", p, n, root, comm.rank()));
        }
      return bad;
    }));
  };
  check(Ring<5>{});
  check(Mesh<2, 3>{});
  check(Mesh<3, 3>{});
}

namespace {

/// Every rank calls `call(comm, buffers)`, which must throw std::invalid_argument whose
/// message names `name`, leaving the buffers as they were.
template <class Topo, class Call>
void check_refused(const Topo& topo, const char* name, Call call)
{
  const std::size_t p = topo.size();
  struct Outcome {
    std::string what;
    bool untouched = false;
  };
  const auto got = run_on(topo, [&](auto& comm) {
    Outcome o;
    std::vector<double> a = values<double>(comm.rank(), 3 * p), b(3 * p, poison<double>());
    const auto a0 = a, b0 = b;
    try {
      call(comm, a, b);
      o.what = "nothing thrown";
    } catch (const std::invalid_argument& e) {
      o.what = e.what();
    }
    o.untouched = a == a0 && b == b0;
    return o;
  });
  for (std::size_t r = 0; r < p; ++r) {
    INFO("rank " << r);
    CHECK_THAT(got[r].what, Contains(name));
    CHECK(got[r].untouched);
  }
}

} // namespace

TEST_CASE("rooted: a bad root throws std::invalid_argument naming the call, writing nothing", "[rooted]")
{
  const auto too_big = [](std::size_t p) { return p; };
  for (const auto& topo : {Ring<>{5}, Ring<>{1}}) {
    const std::size_t bad = too_big(topo.size());
    check_refused(topo, "collectives::broadcast: root", [&](auto& comm, auto& a, auto&) { broadcast(comm, a, bad); });
    check_refused(topo, "collectives::broadcast: root", [&](auto& comm, auto& a, auto&) {
      broadcast(comm, a, bad, broadcast_algorithm::scatter_allgather);
    });
    check_refused(topo, "collectives::scatter: root", [&](auto& comm, auto& a, auto& b) {
      scatter(comm, a, std::span<double>(b).first(3), bad, scatter_algorithm::ring);
    });
    check_refused(topo, "collectives::gather: root", [&](auto& comm, auto& a, auto& b) {
      gather(comm, std::span<const double>(a).first(3), b, bad);
    });
  }
  // Negative roots (signed integers) are refused as such.
  check_refused(Ring<>{4}, "collectives::broadcast: the root is negative",
                [](auto& comm, auto& a, auto&) { broadcast(comm, a, -1); });
  check_refused(Ring<>{4}, "collectives::gather: the root is negative",
                [](auto& comm, auto& a, auto& b) { gather(comm, std::span<const double>(a).first(3), b, -2); });
  check_refused(Ring<>{4}, "collectives::scatter: the root is negative",
                [](auto& comm, auto& a, auto& b) { scatter(comm, a, std::span<double>(b).first(3), -3); });
  // A dynamic topology with a static root: checked at run time.
  check_refused(Mesh<>{2, 2}, "collectives::broadcast: root 4 is not a rank of a communicator of 4",
                [](auto& comm, auto& a, auto&) { broadcast(comm, a, root_c<4>); });
  // The hypercube algorithm on a p that is not a power of two.
  check_refused(Ring<>{6}, "collectives::broadcast", [](auto& comm, auto& a, auto&) {
    broadcast(comm, a, 0, broadcast_algorithm::hypercube);
  });
  check_refused(Ring<>{6}, "collectives::scatter", [](auto& comm, auto& a, auto& b) {
    scatter(comm, a, std::span<double>(b).first(3), 0, scatter_algorithm::hypercube);
  });
  check_refused(Ring<>{6}, "collectives::gather", [](auto& comm, auto& a, auto& b) {
    gather(comm, std::span<const double>(a).first(3), b, 0, gather_algorithm::hypercube);
  });
}

TEST_CASE("rooted: a root's buffer too small throws before anything is written", "[rooted]")
{
  // Only the root can tell; the others, already waiting, are released by the team and the
  // root's exception comes out of Team::run.
  constexpr std::size_t p = 4, m = 3, root = 2;
  std::vector<std::vector<double>> send(p), recv(p);
  for (std::size_t r = 0; r < p; ++r) {
    send[r] = values<double>(r, r == root ? p * m - 1 : m);
    recv[r].assign(r == root ? p * m - 1 : m, poison<double>());
  }
  const auto send0 = send, recv0 = recv;
  auto run = [&](auto body) {
    threads::Team team{p};
    team.run([&](threads::Endpoint& ep) {
      Communicator<threads::Endpoint, Ring<p>> comm{ep, Ring<p>{}};
      body(comm);
    });
  };
  using Catch::Matchers::Message;
  CHECK_THROWS_MATCHES(run([&](auto& comm) {
    scatter(comm, send[comm.rank()], std::span<double>(recv[comm.rank()]).first(m), root);
  }),
                       std::invalid_argument,
                       Message("collectives::scatter: the root's send range has 11 elements, needs p*m = 12"));
  CHECK(recv[root] == recv0[root]);
  CHECK(send == send0);
  CHECK_THROWS_MATCHES(run([&](auto& comm) {
    gather(comm, std::span<const double>(send[comm.rank()]).first(m), recv[comm.rank()], root_c<root>,
           gather_algorithm::ring);
  }),
                       std::invalid_argument,
                       Message("collectives::gather: the root's receive range has 11 elements, needs p*m = 12"));
  CHECK(recv[root] == recv0[root]);
  CHECK(send == send0);
}

TEST_CASE("error texts: the pieces of a message, text and integers of every sign, in order", "[rooted][errors]")
{
  using detail::text_of;
  CHECK(text_of({}) == "");
  CHECK(text_of({"root ", std::size_t{7}, " of ", 4, "; delta ", -12, ", ", std::int64_t{-9223372036854775807 - 1}}) ==
        "root 7 of 4; delta -12, -9223372036854775808");
  const std::string owned = "collectives::scan";
  CHECK(text_of({std::string_view(owned), ": ", std::uint64_t{18446744073709551615u}, " elements"}) ==
        "collectives::scan: 18446744073709551615 elements");
  CHECK_THROWS_MATCHES(detail::throw_invalid({"a", 1, "b"}), std::invalid_argument,
                       Catch::Matchers::Message("a1b"));
  CHECK_THROWS_MATCHES(detail::throw_length({"n = ", 0u}), std::length_error, Catch::Matchers::Message("n = 0"));
}
