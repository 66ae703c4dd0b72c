#pragma once
// What the run-time tests of the seeds' algorithms share: serial references, the sizes,
// roots and operators they sweep, and a team whose communicator selects by the seeds'
// model.

#include <catch2/catch.hpp>

#include "../support/failures.hpp"
#include "../support/harness.hpp"
#include "../support/sanitizers.hpp"
#include "seeds.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace seeds_test {

using namespace collectives::testing;

/// x -> a x + b; composition (apply the left, then the right) is associative and not
/// commutative, so a wrong order of combination shows.
struct Affine {
  std::uint64_t a = 1, b = 0;
  friend bool operator==(const Affine&, const Affine&) = default;
};
/// Affine maps composed: l, then r.
struct compose {
  Affine operator()(const Affine& l, const Affine& r) const { return {r.a * l.a, r.a * l.b + r.b}; }
};

/// Rank `rank`'s contribution at index i.
template <class T>
T contribution(std::size_t rank, std::size_t i)
{
  if constexpr (std::is_same_v<T, Affine>) return {2 * (rank * 7 + i) + 3, rank * 1000003 + i}; // odd a
  else return static_cast<T>(rank * 17 + i % 101); // exact in double: sums are exact in any order
}

/// The serial reference: the contributions folded in rank order.
template <class T, class Op>
std::vector<T> reduced(std::size_t p, std::size_t n, Op op)
{
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    T x = contribution<T>(0, i);
    for (std::size_t r = 1; r < p; ++r) x = op(x, contribution<T>(r, i));
    v[i] = x;
  }
  return v;
}

/// Names a wrong result.
inline std::string where(const char* call, const char* alg, const char* type, std::size_t p, std::size_t n,
                         std::size_t root, std::size_t rank)
{
  return std::string(call) + "(" + alg + ") on " + type + ": p = " + std::to_string(p) + ", n = " + std::to_string(n) +
         ", root = " + std::to_string(root) + ", wrong on rank " + std::to_string(rank);
}

/// Sizes: empty, one element, fewer than p pieces, odd.
inline const std::vector<std::size_t> small_sizes{0, 1, 7, 1001};
/// A large odd size (800 kB of doubles), once per topology.
inline const std::vector<std::size_t> large_size{sanitized ? 20001u : 100003u};

/// Calls f(tag) for each added algorithm of collective C that fits topo.
template <Collective C, class Topo, class F>
void each_added(const Topo& topo, F f)
{
  boost::hana::for_each(added, [&](auto alg) {
    using A = decltype(alg);
    if constexpr (A::collective == C && fits_topology_type<A, Topo>)
      if (fits(alg, topo)) f(alg);
  });
}

/// Three roots: first, middle, last.
inline std::vector<std::size_t> three_roots(std::size_t p)
{
  std::vector<std::size_t> roots{0};
  if (p > 2) roots.push_back(p / 2 + 1);
  if (p > 1) roots.push_back(p - 1);
  return roots;
}

/// The rings the run tests sweep (fewer under the sanitizers).
inline std::vector<std::size_t> ring_sizes()
{
  return sanitized ? std::vector<std::size_t>{1, 2, 3, 4, 5, 8, 9}
                   : std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16};
}

/// Meshes (rows, columns) the run tests sweep: one node, square and not, a single row.
inline std::vector<std::pair<std::size_t, std::size_t>> mesh_extents() { return {{1, 1}, {3, 4}, {4, 3}, {1, 5}, {4, 4}}; }

/// 3-D tori the run tests sweep, one with an extent of 1, one of twos.
using Torus3 = Torus<dynamic_extent, dynamic_extent, dynamic_extent>;
inline std::vector<Torus3> tori() { return {Torus3{2, 3, 4}, Torus3{3, 1, 3}, Torus3{2, 2, 2}}; }

/// Calls f(topology) for each ring of ring_sizes().
template <class F>
void on_rings(F f)
{
  for (std::size_t p : ring_sizes()) {
    INFO("Ring<>{" << p << "}");
    f(Ring<>{p});
  }
}

/// Calls f(topology) for each mesh of mesh_extents() and each torus of tori().
template <class F>
void on_meshes_and_tori(F f)
{
  for (const auto& [r, c] : mesh_extents()) {
    INFO("Mesh<>{" << r << ", " << c << "}");
    f(Mesh<>{r, c});
  }
  for (const Torus3& torus : tori()) {
    INFO("Torus{" << torus.extent(0) << ", " << torus.extent(1) << ", " << torus.extent(2) << "}");
    f(torus);
  }
}

/// Calls f(topology) for the hypercubes of 0 to 4 dimensions.
template <class F>
void on_hypercubes(F f)
{
  for (std::size_t d = 0; d <= 4; ++d) {
    INFO("hypercube of " << d);
    f(Hypercube<>::of_dims(d));
  }
}

/// 0, 1, ..., p - 1.
inline std::vector<std::size_t> every_root(std::size_t p)
{
  std::vector<std::size_t> roots(p);
  for (std::size_t i = 0; i < p; ++i) roots[i] = i;
  return roots;
}

/// Runs body(comm, failures) on a threads team bound to topo whose communicator selects
/// default algorithms under the seeds' SF model; reports the failures.
template <class Topo, class Body>
void on_seed_model(const Topo& topo, Body body)
{
  std::vector<Failures> out(topo.size());
  threads::Team team{topo.size()};
  team.run([&](threads::Endpoint& ep) {
    Communicator<threads::Endpoint, Topo> comm{ep, topo, seed_sf};
    body(comm, out[ep.rank()]);
  });
  report(out);
}

} // namespace seeds_test
