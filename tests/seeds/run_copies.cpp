// Broadcast, scatter and gather with the seeds' algorithms on the threads transport
// against serial references: rings, meshes, tori and hypercubes (p = 1 included), several
// roots, sizes 0, 1, odd and large, of char, double and a struct; and the default path
// where it picks them.

#include <catch2/catch.hpp>

#include "run.hpp"

#include <cstddef>
#include <utility>
#include <vector>

using namespace seeds_test;

namespace {

/// Broadcast, scatter and gather with every added algorithm that fits topo, from each root
/// of `roots`, for each size, with elements of T.
template <class T, class Topo>
void check_copies(const Topo& topo, const std::vector<std::size_t>& roots,
                  const std::vector<std::size_t>& sizes = small_sizes)
{
  const std::size_t p = topo.size();
  report(run_on(topo, [&](auto& comm) {
    Failures bad;
    const std::size_t r = comm.rank();
    for (std::size_t root : roots)
      for (std::size_t n : sizes) {
        each_added<Collective::broadcast>(topo, [&](auto alg) {
          std::vector<T> buf = r == root ? values<T>(root, n) : std::vector<T>(n, poison<T>());
          broadcast(comm, buf, root, alg);
          if (buf != values<T>(root, n)) bad.push_back(where("broadcast", alg.name, type_name<T>(), p, n, root, r));
        });
        // Blocks of a scatter and gather: fewer elements, the message is p of them.
        const std::size_t m = n / (p > 8 ? 8 : 1);
        each_added<Collective::scatter>(topo, [&](auto alg) {
          const std::vector<T> send = r == root ? gathered<T>(p, m) : std::vector<T>{};
          std::vector<T> recv(m, poison<T>());
          scatter(comm, send, recv, root, alg);
          if (recv != values<T>(r, m)) bad.push_back(where("scatter", alg.name, type_name<T>(), p, m, root, r));
        });
        each_added<Collective::gather>(topo, [&](auto alg) {
          std::vector<T> recv(r == root ? p * m : 0, poison<T>());
          gather(comm, values<T>(r, m), recv, root, alg);
          if (r == root && recv != gathered<T>(p, m)) bad.push_back(where("gather", alg.name, type_name<T>(), p, m, root, r));
        });
      }
    return bad;
  }));
}

template <class Topo>
void check_everything(const Topo& topo)
{
  const auto roots = three_roots(topo.size());
  check_copies<char>(topo, roots);
  check_copies<Particle>(topo, {roots.back()}, {7});
  check_copies<double>(topo, {roots.back()}, large_size);
}

} // namespace

TEST_CASE("seeds run: broadcast, scatter, gather on rings, p = 1..9, 12, 16", "[seeds][run]")
{
  on_rings([](const auto& topo) { check_everything(topo); });
}

TEST_CASE("seeds run: broadcast, scatter, gather on meshes and tori, square or not, 3-D", "[seeds][run]")
{
  on_meshes_and_tori([](const auto& topo) { check_everything(topo); });
  // Every root of a non-square mesh: phases run relative to the root's row and column.
  check_copies<char>(Mesh<>{3, 4}, every_root(12));
}

TEST_CASE("seeds run: broadcast, scatter, gather on hypercubes, d = 0..4", "[seeds][run]")
{
  on_hypercubes([](const auto& topo) { check_everything(topo); });
}

TEST_CASE("seeds run: the default broadcast, scatter and gather pick them under the seeds' model",
          "[seeds][run][select]")
{
  // Called without an algorithm, the collectives run what select() picks (cost.cpp checks
  // the picks on the examples), here the seeds' algorithms.
  const std::size_t n = 1000; // 8-byte words: m = 1000
  auto check_broadcast = [n](const auto& topo, std::size_t root) {
    on_seed_model(topo, [&](auto& comm, Failures& bad) {
      const std::size_t r = comm.rank();
      std::vector<double> buf = r == root ? values<double>(root, n) : std::vector<double>(n, poison<double>());
      broadcast(comm, buf, root);
      if (buf != values<double>(root, n)) bad.push_back(where("broadcast", "default", "double", topo.size(), n, root, r));
    });
  };
  const Mesh<> mesh{8, 8};
  const Problem pr{.m = 1000};
  REQUIRE(select<Collective::broadcast>(mesh, seed_sf, pr).name == "dimensional_ring");
  check_broadcast(mesh, 9);
  const auto cube = Hypercube<>::of_dims(4);
  REQUIRE(select<Collective::broadcast>(cube, seed_sf, pr).name == "scatter_allgather_hypercube");
  check_broadcast(cube, 5);
  REQUIRE(select<Collective::scatter>(mesh, seed_sf, pr).name == "dimensional_ring");
  REQUIRE(select<Collective::gather>(mesh, seed_sf, pr).name == "dimensional_ring");
  on_seed_model(mesh, [&](auto& comm, Failures& bad) {
    const std::size_t r = comm.rank();
    const std::vector<double> send = r == 9 ? gathered<double>(64, n) : std::vector<double>{};
    std::vector<double> recv(n, poison<double>());
    scatter(comm, send, recv, 9);
    if (recv != values<double>(r, n)) bad.push_back(where("scatter", "default", "double", 64, n, 9, r));
    std::vector<double> all(r == 9 ? 64 * n : 0, poison<double>());
    gather(comm, values<double>(r, n), all, 9);
    if (r == 9 && all != gathered<double>(64, n)) bad.push_back(where("gather", "default", "double", 64, n, 9, r));
  });
}
