// A translation unit of benchmarks/compile_time/run.sh (`shapes_defaults`; not built by
// CMake): alltoall, allreduce and broadcast by default, as in tu.cpp's three_defaults, on
// communicators over five static shapes (Ring<4>, Ring<5>, Ring<8>, Mesh<2, 2>,
// Hypercube<3>). What it shows against three_defaults: what one more static shape costs.
// A default call selects on its topology's all-dynamic twin (Ring<>, Mesh<>, Hypercube<>),
// so the shapes of one family share the selection; each shape still compiles its own
// front ends and schedules.
#include <collectives/collectives.hpp>

#include <functional>
#include <iostream>
#include <vector>

using namespace collectives;

template <class Topo>
void calls(threads::Endpoint& ep)
{
  Communicator<threads::Endpoint, Topo> comm(ep);
  const std::size_t p = comm.size();
  std::vector<double> a(16, 1.0), b(16), s(16 * p, 1.0), r(16 * p);
  allreduce(comm, a, b, std::plus<>{});
  alltoall(comm, s, r);
  broadcast(comm, b, 0);
  if (ep.rank() == 0) std::cout << b[0] + r[0] << '\n';
}

int main()
{
  threads::Team(4).run([](threads::Endpoint& ep) {
    calls<Ring<4>>(ep);
    calls<Mesh<2, 2>>(ep);
  });
  threads::Team(5).run([](threads::Endpoint& ep) { calls<Ring<5>>(ep); });
  threads::Team(8).run([](threads::Endpoint& ep) {
    calls<Ring<8>>(ep);
    calls<Hypercube<3>>(ep);
  });
}
