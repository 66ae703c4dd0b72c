// Consumer smoke test, shared by the three consumer projects (find_package, add_subdirectory,
// FetchContent): compiles and runs against the installed/added collectives package,
// through the registry API (algorithms<C>, fits, the front ends) and C++20 ranges only.
#include <collectives/collectives.hpp>

#include <boost/hana/for_each.hpp>

#include <cstddef>
#include <functional>
#include <vector>

static_assert(collectives::Ring<8>{}.size() == 8);
// Fit by type: pairwise_xor cannot be named on six ranks, pairwise can.
static_assert(!collectives::fits_topology_type<decltype(collectives::alltoall_algorithm::pairwise_xor), collectives::Ring<6>>);
static_assert(collectives::fits_topology_type<decltype(collectives::alltoall_algorithm::pairwise), collectives::Ring<6>>);
static_assert(collectives::fitting_algorithms<collectives::Collective::alltoall>(collectives::Ring<5>{}).contains("pairwise"));

int main()
{
  using namespace collectives;
  constexpr std::size_t p = 4, m = 3;
  int bad = 0;
  // Every alltoall algorithm that fits a dynamic ring of p, and the default.
  std::size_t ran = 0;
  const Ring<> ring{p};
  auto check = [&](auto run) {
    std::vector<int> ok(p, 0);
    threads::Team team{p};
    team.run([&](threads::Endpoint& ep) {
      Communicator comm{ep, ring};
      ok[ep.rank()] = run(comm) ? 1 : 0;
    });
    for (int o : ok) bad += o == 1 ? 0 : 1;
  };
  boost::hana::for_each(algorithms<Collective::alltoall>, [&](auto alg) {
    if constexpr (fits_topology_type<decltype(alg), Ring<>>) {
      if (!fits(alg, ring)) return;
      ++ran;
      check([&](auto& comm) {
        std::vector<int> send(p * m), recv(p * m, -1);
        for (std::size_t i = 0; i < send.size(); ++i) send[i] = static_cast<int>(comm.rank() * 100 + i);
        alltoall(comm, send, recv, alg);
        for (std::size_t j = 0; j < p; ++j)
          for (std::size_t e = 0; e < m; ++e)
            if (recv[j * m + e] != static_cast<int>(j * 100 + comm.rank() * m + e)) return false;
        return true;
      });
    }
  });
  // The default allreduce, in place, and the per-rank blocks of an allgather.
  check([&](auto& comm) {
    std::vector<long> v(5, static_cast<long>(comm.rank() + 1));
    allreduce(comm, v, std::plus<>{});
    std::vector<long> all(p);
    allgather(comm, std::vector<long>{static_cast<long>(comm.rank())}, all);
    long sum = 0;
    for (auto b : blocks(all, p)) sum += b[0];
    return v == std::vector<long>(5, static_cast<long>(p * (p + 1) / 2)) && sum == static_cast<long>(p * (p - 1) / 2);
  });
  return bad == 0 && ran >= 3 ? 0 : 1;
}
