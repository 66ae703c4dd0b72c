// A user-defined topology (examples/linear_array.hpp) next to the library's ring: both
// satisfy collectives::topology, and the generic route() walks either.

#include "linear_array.hpp"

#include <collectives/topology.hpp>

#include <cstddef>
#include <cstdio>

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
  return 0;
}
