// Reduce with the seeds' algorithms on the threads transport against serial references:
// commutative and not, out of place and in place, on rings, meshes, tori and hypercubes
// (p = 1 included), several roots, sizes 0, 1, odd and large; and the default path where
// it picks them.

#include <catch2/catch.hpp>

#include "run.hpp"

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

using namespace seeds_test;

namespace {

/// Reduce with every added algorithm that fits topo, out of place and in place, from each
/// root, for each size, with operator op on T.
template <class T, class Op, class Topo>
void check_reduce(const Topo& topo, const std::vector<std::size_t>& roots, Op op, const char* type,
                  const std::vector<std::size_t>& sizes = small_sizes)
{
  const std::size_t p = topo.size();
  std::vector<std::vector<T>> wants; // per size, computed once rather than on every rank
  for (std::size_t n : sizes) wants.push_back(reduced<T>(p, n, op));
  report(run_on(topo, [&](auto& comm) {
    Failures bad;
    const std::size_t r = comm.rank();
    for (std::size_t root : roots)
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        const std::size_t n = sizes[k];
        const std::vector<T>& want = wants[k];
        std::vector<T> mine(n);
        for (std::size_t i = 0; i < n; ++i) mine[i] = contribution<T>(r, i);
        each_added<Collective::reduce>(topo, [&](auto alg) {
          std::vector<T> out(r == root ? n : 0);
          reduce(comm, mine, out, op, root, alg);
          if (r == root && out != want) bad.push_back(where("reduce", alg.name, type, p, n, root, r));
          std::vector<T> buf = mine;
          reduce(comm, buf, op, root, alg);
          if ((r == root && buf != want) || (r != root && buf != mine))
            bad.push_back(where("reduce in place", alg.name, type, p, n, root, r));
        });
      }
    return bad;
  }));
}

template <class Topo>
void check_everything(const Topo& topo)
{
  const auto roots = three_roots(topo.size());
  check_reduce<Affine>(topo, roots, compose{}, "affine maps, composed (not commutative)");
  check_reduce<long long>(topo, roots, std::plus<long long>{}, "long long, plus", {1, 7});
  check_reduce<double>(topo, {roots.back()}, std::plus<double>{}, "double, plus", large_size);
}

} // namespace

TEST_CASE("seeds run: reduce on rings, p = 1..9, 12, 16", "[seeds][run]")
{
  on_rings([](const auto& topo) { check_everything(topo); });
}

TEST_CASE("seeds run: reduce on meshes and tori, square or not, 3-D", "[seeds][run]")
{
  on_meshes_and_tori([](const auto& topo) { check_everything(topo); });
  // Every root of a non-square mesh, with an operator that shows the order of combination.
  check_reduce<Affine>(Mesh<>{3, 4}, every_root(12), compose{}, "affine maps, composed (not commutative)");
}

TEST_CASE("seeds run: reduce on hypercubes, d = 0..4", "[seeds][run]")
{
  on_hypercubes([](const auto& topo) { check_everything(topo); });
}

TEST_CASE("seeds run: the default reduce picks them under the seeds' model", "[seeds][run][select]")
{
  // Called without an algorithm, reduce runs what select() picks, here the seeds' ones.
  const std::size_t n = 500; // 16-byte elements: m = 1000 words
  auto check_default = [n](const auto& topo, std::size_t root) {
    const std::vector<Affine> want = reduced<Affine>(topo.size(), n, compose{});
    on_seed_model(topo, [&](auto& comm, Failures& bad) {
      const std::size_t r = comm.rank();
      std::vector<Affine> mine(n), out(r == root ? n : 0);
      for (std::size_t i = 0; i < n; ++i) mine[i] = contribution<Affine>(r, i);
      reduce(comm, mine, out, compose{}, root);
      if (r == root && out != want) bad.push_back(where("reduce", "default", "affine", topo.size(), n, root, r));
    });
  };
  const Problem not_commutative{.m = 1000, .root = 7, .commutative = false};
  REQUIRE(select<Collective::reduce>(Ring<>{12}, seed_sf, not_commutative).name == "ring_staggered");
  check_default(Ring<>{12}, 7);
  REQUIRE(select<Collective::reduce>(Mesh<>{6, 6}, seed_sf, not_commutative).name == "dimensional_ring");
  check_default(Mesh<>{6, 6}, 7);
}
