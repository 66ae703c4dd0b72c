// alltoallv over the MPI transport equals MPI_Alltoallv, and shift equals the
// MPI_Sendrecv it stands for, for every algorithm of each (read from the registry) and
// the default, on the same input.

#include <catch2/catch.hpp>

#include "support.hpp"

#include <cstddef>
#include <string>
#include <vector>

using namespace collectives;
using collectives::mpi_testing::all_ranks;
using collectives::mpi_testing::mesh_shape;
using collectives::mpi_testing::or_abort;
using collectives::mpi_testing::world_rank;
using collectives::mpi_testing::world_size;
using collectives::testing::Particle;

namespace {

/// MPI's view of n elements of T: (datatype, elements per T).
template <class T>
std::pair<MPI_Datatype, std::size_t> mpi_unit()
{
  if constexpr (std::is_same_v<T, double>) return {MPI_DOUBLE, 1};
  else return {MPI_BYTE, sizeof(T)};
}

std::vector<int> to_int(const std::vector<std::size_t>& v, std::size_t scale)
{
  std::vector<int> out;
  for (std::size_t x : v) out.push_back(static_cast<int>(x * scale));
  return out;
}

} // namespace


namespace {

/// Elements rank `from` sends rank `to`: irregular, zero for some pairs.
std::size_t v_count(std::size_t from, std::size_t to, std::size_t scale)
{
  return ((from * 3 + to * 5 + 1) % 7) * scale;
}

template <class T>
void check_alltoallv(std::size_t scale)
{
  const std::size_t p = world_size(), me = world_rank();
  // Send blocks in rank order with a gap of 2 after each; receive blocks in reverse rank
  // order with a gap of 1, so displacements are neither packed nor monotonic.
  std::vector<std::size_t> sc(p), sd(p), rc(p), rd(p);
  std::size_t at = 0;
  for (std::size_t j = 0; j < p; ++j) {
    sc[j] = v_count(me, j, scale);
    sd[j] = at;
    at += sc[j] + 2;
  }
  std::vector<T> send(at);
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = testing::make_value<T>(me, i);
  at = 0;
  for (std::size_t i = p; i-- > 0;) {
    rc[i] = v_count(i, me, scale);
    rd[i] = at;
    at += rc[i] + 1;
  }
  const std::size_t rn = at;

  // Packed layouts too (displacements = prefix sums).
  std::size_t rpn = 0;
  for (std::size_t j = 0; j < p; ++j) rpn += rc[j];
  std::vector<T> send_packed;
  for (std::size_t j = 0; j < p; ++j)
    for (std::size_t e = 0; e < sc[j]; ++e) send_packed.push_back(send[sd[j] + e]);

  const auto [type, unit] = mpi_unit<T>();
  std::vector<T> want(rn, testing::poison<T>()), want_packed(rpn, testing::poison<T>());
  MPI_Alltoallv(send.data(), to_int(sc, unit).data(), to_int(sd, unit).data(), type, want.data(),
                to_int(rc, unit).data(), to_int(rd, unit).data(), type, MPI_COMM_WORLD);
  {
    std::vector<std::size_t> spd(p), rpd(p);
    for (std::size_t j = 1; j < p; ++j) {
      spd[j] = spd[j - 1] + sc[j - 1];
      rpd[j] = rpd[j - 1] + rc[j - 1];
    }
    MPI_Alltoallv(send_packed.data(), to_int(sc, unit).data(), to_int(spd, unit).data(), type, want_packed.data(),
                  to_int(rc, unit).data(), to_int(rpd, unit).data(), type, MPI_COMM_WORLD);
  }

  std::vector<std::string> failed;
  mpi::Endpoint ep = or_abort([] { return mpi::Endpoint(); });
  auto run = [&](auto alg) {
    std::vector<T> got(rn, testing::poison<T>()), got_packed(rpn, testing::poison<T>());
    or_abort([&] {
      Communicator comm{ep};
      mpi_testing::call_with(alltoallv, alg, comm, send, sc, sd, got, rc, rd);
      mpi_testing::call_with(alltoallv, alg, comm, send_packed, sc, got_packed, rc);
    });
    if (!all_ranks(got == want && got_packed == want_packed)) failed.push_back(mpi_testing::name_of(alg));
  };
  // Every algorithm of alltoallv's list that fits p (on the world's ring), and the default.
  testing::for_each_fitting_and_default<Collective::alltoallv>(Ring<>{p}, Problem{}, run);
  CAPTURE(failed);
  CHECK(failed.empty());
}

} // namespace

TEST_CASE("alltoallv over MPI equals MPI_Alltoallv", "[mpi][alltoallv]")
{
  for (std::size_t scale : {1, 150}) {
    INFO("counts scaled by " << scale);
    check_alltoallv<double>(scale);
    check_alltoallv<Particle>(scale);
  }
}



namespace {

std::size_t mod(std::ptrdiff_t a, std::size_t p)
{
  const auto pp = static_cast<std::ptrdiff_t>(p);
  return static_cast<std::size_t>(((a % pp) + pp) % pp);
}

/// Runs shift(q, alg) on topo and compares with MPI_Sendrecv to `to`, from `from`.
template <class T, class Topo, class Alg>
bool shift_matches(mpi::Endpoint& ep, const Topo& topo, std::size_t m, std::ptrdiff_t q, Alg alg, std::size_t to,
                   std::size_t from)
{
  const std::size_t me = world_rank();
  std::vector<T> send(m), got(m, testing::poison<T>()), want(m, testing::poison<T>());
  for (std::size_t i = 0; i < m; ++i) send[i] = testing::make_value<T>(me, i);
  or_abort([&] {
    Communicator<mpi::Endpoint, Topo> comm{ep, topo};
    mpi_testing::call_with(shift, alg, comm, send, got, q);
  });
  const auto [type, unit] = mpi_unit<T>();
  const int n = static_cast<int>(m * unit);
  MPI_Sendrecv(send.data(), n, type, static_cast<int>(to), 5, want.data(), n, type, static_cast<int>(from), 5,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return all_ranks(got == want);
}

template <class T>
void check_shift(std::size_t m)
{
  const std::size_t p = world_size(), me = world_rank();
  const auto pp = static_cast<std::ptrdiff_t>(p);
  const Ring<> ring{p};
  const auto [rows, cols] = mesh_shape(p);
  const Mesh<> mesh{rows, cols};
  std::size_t d = 0;
  while ((std::size_t{1} << d) < p) ++d;
  std::vector<std::string> failed;
  mpi::Endpoint ep = or_abort([] { return mpi::Endpoint(); });
  for (std::ptrdiff_t q : {std::ptrdiff_t{0}, std::ptrdiff_t{1}, std::ptrdiff_t{-1}, std::ptrdiff_t{2},
                           std::ptrdiff_t{-3}, pp, pp + 1, std::ptrdiff_t{-7}}) {
    const std::size_t to = mod(static_cast<std::ptrdiff_t>(me) + q, p);
    const std::size_t from = mod(static_cast<std::ptrdiff_t>(me) - q, p);
    const std::string at = " q=" + std::to_string(q);
    // Every algorithm of shift's list that fits, and the default, on the ring and the mesh.
    const auto on = [&](const auto& topo, const std::string& where) {
      testing::for_each_fitting_and_default<Collective::shift>(topo, Problem{.q = q}, [&](auto alg) {
        if (!shift_matches<T>(ep, topo, m, q, alg, to, from))
          failed.push_back(mpi_testing::name_of(alg) + " on " + where + at);
      });
    };
    on(ring, "a ring");
    on(mesh, "a mesh");
    if ((p & (p - 1)) == 0 && p >= 2) {
      // Positions on the Gray-code ring shift, not ranks.
      const std::size_t pos = embedded_ring_position(me);
      const std::size_t gto = embedded_ring_node(mod(static_cast<std::ptrdiff_t>(pos) + q, p));
      const std::size_t gfrom = embedded_ring_node(mod(static_cast<std::ptrdiff_t>(pos) - q, p));
      if (!shift_matches<T>(ep, Hypercube<>::of_dims(d), m, q, shift_algorithm::hypercube_sf, gto, gfrom))
        failed.push_back("hypercube_sf" + at);
    }
  }
  CAPTURE(failed);
  CHECK(failed.empty());
}

} // namespace

TEST_CASE("shift over MPI equals MPI_Sendrecv", "[mpi][shift]")
{
  for (std::size_t m : {0, 1, 7, 1000}) {
    INFO("m = " << m);
    check_shift<double>(m);
  }
  check_shift<Particle>(7);
}

