// Compiled, never run (tests/CMakeLists.txt: separate.executor_core_once): header-only
// calls of several collectives over several element types and operators (double and
// std::plus, int and a lambda, float and std::multiplies, a struct and a non-commutative
// lambda, char and no operator), on the threads transport and on rings of two static
// sizes. Issue 12: "the executor core should not be instantiated per T and Op". The check
// (cmake/CheckExecutorCore.cmake, nm) finds the core (run_steps, make_plan, run_plan)
// defined once in this object, and the typed pieces (a combine kernel and an entry
// point, execute_ref, per element type and operator) several times: the twin that shows
// the check sees the typed instantiations the core does without.

#include <collectives/collectives.hpp>

#include <functional>
#include <vector>

namespace {

struct Pair {
  double a = 0, b = 0;
};

template <class Topo>
void calls(collectives::threads::Endpoint& ep, const Topo& topo)
{
  using namespace collectives;
  Communicator<threads::Endpoint, Topo> comm(ep, topo);
  const std::size_t p = topo.size();
  std::vector<double> d(2 * p, 1.0), dd(2 * p);
  std::vector<int> i(p, 1), ii(p);
  std::vector<float> f(p, 1.0f), ff(p);
  std::vector<Pair> q(p), qq(p);
  std::vector<char> c(p, 'x'), cc(p);
  allreduce(comm, d, dd, std::plus<>{});
  allreduce(comm, i, ii, [](int x, int y) { return x > y ? x : y; });
  reduce(comm, f, ff, std::multiplies<>{}, 0);
  scan(comm, q, qq, [](Pair x, Pair y) { return Pair{x.a + y.a, x.b * y.b}; });
  reduce_scatter(comm, d, std::span<double>(dd.data(), 2), std::plus<>{});
  alltoall(comm, c, cc);
  broadcast(comm, d, 0);
}

} // namespace

void executor_core_once(collectives::threads::Endpoint& ep)
{
  calls(ep, collectives::Ring<4>{});
  calls(ep, collectives::Ring<8>{});
}
