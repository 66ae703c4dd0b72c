// A user-defined topology (examples/linear_array.hpp) next to the library's ring: both
// satisfy collectives::topology, so the generic route() walks either, the cost layer
// estimates and selects on either, and a Communicator runs any collective on either.

#include "linear_array.hpp"

#include <collectives/collectives.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

template <collectives::topology T>
void print_route(const char* name, const T& t, std::size_t from, std::size_t to)
{
  std::printf("%-14s route %zu -> %zu:  %zu", name, from, to, from);
  for (collectives::Link link : collectives::route(t, from, to)) std::printf(" -> %zu", link.to);
  const std::size_t n = collectives::hops(t, from, to);
  std::printf("   (%zu hop%s)\n", n, n == 1 ? "" : "s");
}

} // namespace

int main()
{
  constexpr user::LinearArray line{8};
  static_assert(collectives::topology<user::LinearArray>);
  static_assert(collectives::route(line, 0, 7).size() == 7); // usable in constant expressions

  std::printf("LinearArray(%zu): %zu nodes, diameter %zu, distance(1, 6) = %zu, is_link(3, 4) = %s\n",
              line.size(), line.size(), line.diameter(), line.distance(1, 6), line.is_link(3, 4) ? "yes" : "no");

  const collectives::Ring<8> ring{};
  std::printf("Ring<8>:        %zu nodes, diameter %zu, distance(1, 6) = %zu, is_link(7, 0) = %s\n", ring.size(),
              ring.diameter(), ring.distance(1, 6), ring.is_link(7, 0) ? "yes" : "no");

  print_route("LinearArray(8)", line, 1, 6);
  print_route("Ring<8>", ring, 1, 6);
  print_route("LinearArray(8)", line, 7, 0);
  print_route("Ring<8>", ring, 7, 0);

  // The routes agree with the distances.
  for (std::size_t a = 0; a < line.size(); ++a)
    for (std::size_t b = 0; b < line.size(); ++b)
      if (collectives::route(line, a, b).size() != line.distance(a, b)) {
        std::printf("error: route %zu -> %zu has the wrong length\n", a, b);
        return 1;
      }

  // What an all-gather costs on the line, and which algorithm the cost model picks: on the
  // line the ring algorithm's wrap-around message crosses every link, which a ring avoids.
  constexpr collectives::CostModel model{.t_s = 1e-6, .t_w = 1e-9, .t_h = 1e-7};
  constexpr collectives::Problem problem{.m = 1024};
  constexpr auto pick = collectives::select<collectives::Collective::allgather>(line, model, problem);
  std::printf("allgather of 1024 words on LinearArray(8): %s, %.2f us (ring: %.2f us, on Ring<8>: %.2f us)\n",
              pick.name.data(), pick.time * 1e6,
              collectives::predict(collectives::allgather_algorithm::ring, line, model, problem).time * 1e6,
              collectives::predict(collectives::allgather_algorithm::ring, ring, model, problem).time * 1e6);

  // And a collective running on it: an all-reduce and an all-gather over 8 threads,
  // checked against the serial sums.
  std::vector<char> rank_ok(line.size(), 1); // one flag per rank: the ranks are threads
  collectives::threads::Team team{line.size()};
  team.run([&](collectives::threads::Endpoint& ep) {
    collectives::Communicator comm{ep, line};
    const std::vector<long> mine(5, static_cast<long>(ep.rank() + 1));
    std::vector<long> sum(5), all(5 * line.size());
    collectives::allreduce(comm, mine, sum, std::plus<>{});
    collectives::allgather(comm, mine, all);
    bool ok = true;
    for (long x : sum) ok = ok && x == 36;
    for (std::size_t i = 0; i < all.size(); ++i) ok = ok && all[i] == static_cast<long>(i / 5 + 1);
    rank_ok[ep.rank()] = ok ? 1 : 0;
  });
  const bool ok = std::all_of(rank_ok.begin(), rank_ok.end(), [](char c) { return c == 1; });
  std::printf("allreduce and allgather on LinearArray(8) over 8 threads: %s\n", ok ? "correct" : "WRONG");
  return ok ? 0 : 1;
}
