// A user-defined topology (examples/linear_array.hpp: a line of n nodes without wraparound)
// satisfies collectives::topology, and the generic parts of the library (route, hops,
// static_size_v, RouteView as a range) work on it; its routes and distances obey the
// same laws as the library's own topologies.

#include <catch2/catch.hpp>

#include "../../examples/linear_array.hpp"

#include <collectives/topology.hpp>

#include <cstddef>
#include <iterator>
#include <ranges>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using user::LinearArray;

namespace {

using std::size_t;

// The concept, and what the library derives from it.
static_assert(collectives::topology<LinearArray>);
static_assert(!collectives::product_topology<LinearArray>);
static_assert(collectives::static_size_v<LinearArray> == collectives::dynamic_extent);
static_assert(requires(const LinearArray& t) { t.diameter(); }); // the optional extra
static_assert(!std::is_convertible_v<size_t, LinearArray>);
static_assert(std::is_same_v<decltype(collectives::route(LinearArray{3}, 0, 2)), collectives::RouteView<LinearArray>>);
static_assert(std::ranges::forward_range<collectives::RouteView<LinearArray>>);

// The generic route in constant expressions.
static_assert(collectives::route(LinearArray{5}, 0, 4).size() == 4);
static_assert(collectives::route(LinearArray{5}, 4, 1).size() == 3);
static_assert(collectives::route(LinearArray{5}, 2, 2).size() == 0);
static_assert(collectives::hops(LinearArray{5}, 4, 1) == 3);
static_assert(*collectives::route(LinearArray{5}, 4, 1).begin() == collectives::Link{4, 3});

/// A topology the library knows nothing about beyond the concept: only the three members.
struct Minimal {
  size_t n = 4;
  constexpr size_t size() const { return n; }
  constexpr size_t next_hop(size_t a, size_t b) const { return a < b ? a + 1 : a > b ? a - 1 : a; }
  constexpr size_t distance(size_t a, size_t b) const { return a < b ? b - a : a - b; }
};
static_assert(collectives::topology<Minimal>);
static_assert(collectives::route(Minimal{}, 3, 0).size() == 3);

// Not topologies: something is missing.
struct NoDistance {
  size_t size() const { return 1; }
  size_t next_hop(size_t a, size_t) const { return a; }
};
struct NoNextHop {
  size_t size() const { return 1; }
  size_t distance(size_t, size_t) const { return 0; }
};
static_assert(!collectives::topology<NoDistance>);
static_assert(!collectives::topology<NoNextHop>);

/// The route's nodes after the source.
template <class T>
std::vector<size_t> nodes(const T& t, size_t a, size_t b)
{
  std::vector<size_t> v;
  for (collectives::Link l : collectives::route(t, a, b)) v.push_back(l.to);
  return v;
}

/// The laws for every pair of an n-node line; the first violation as text.
std::string line_laws(const LinearArray& t)
{
  const size_t n = t.size();
  size_t largest = 0;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      const std::string at = " (n=" + std::to_string(n) + ", a=" + std::to_string(a) + ", b=" + std::to_string(b) + ")";
      const size_t d = t.distance(a, b);
      if (d != (a < b ? b - a : a - b)) return "distance != |a - b|" + at;
      if (d != t.distance(b, a)) return "distance is not symmetric" + at;
      if (d > t.diameter()) return "distance > diameter" + at;
      if (collectives::hops(t, a, b) != d) return "hops != distance" + at;
      for (size_t c = 0; c < n; c += 3)
        if (d > t.distance(a, c) + t.distance(c, b)) return "triangle inequality" + at;
      largest = d > largest ? d : largest;

      size_t cur = a;
      size_t links = 0;
      for (collectives::Link l : collectives::route(t, a, b)) {
        if (l.from != cur) return "route is not contiguous" + at;
        if (t.distance(l.from, l.to) != 1 || !t.is_link(l.from, l.to)) return "route crosses a non-link" + at;
        if (t.distance(l.to, b) + 1 != t.distance(l.from, b)) return "route does not get closer" + at;
        cur = l.to;
        if (++links > n) return "route does not end" + at;
      }
      if (cur != b) return "route does not end at the destination" + at;
      if (links != d) return "route length != distance" + at;
      if (collectives::route(t, a, b).size() != d) return "RouteView::size() != distance" + at;
      if (std::ranges::distance(collectives::route(t, a, b)) != static_cast<std::ptrdiff_t>(d))
        return "std::ranges::distance(route) != distance" + at;
    }
  if (largest != t.diameter()) return "diameter is not attained (n=" + std::to_string(n) + ")";
  return {};
}

} // namespace

TEST_CASE("user topology: a linear array satisfies the concept and the route laws", "[topology][user]")
{
  for (size_t n = 1; n <= 64; ++n) {
    const LinearArray t{n};
    REQUIRE(t.size() == n);
    CHECK(line_laws(t) == "");
  }
}

TEST_CASE("user topology: concrete routes, without wraparound", "[topology][user]")
{
  using V = std::vector<size_t>;
  const LinearArray line{8};
  CHECK(nodes(line, 1, 6) == V{2, 3, 4, 5, 6});
  CHECK(nodes(line, 7, 0) == V{6, 5, 4, 3, 2, 1, 0}); // the long way: there is no 7 -> 0 link
  CHECK(nodes(line, 3, 3).empty());
  CHECK(line.diameter() == 7);
  CHECK_FALSE(line.is_link(7, 0));

  // On the ring of the same size, the same pair is one hop apart.
  const collectives::Ring<8> ring{};
  CHECK(nodes(ring, 7, 0) == V{0});
  CHECK(collectives::hops(ring, 7, 0) == 1);
  CHECK(collectives::hops(line, 7, 0) == 7);

  // A route is a range of Links.
  std::vector<collectives::Link> links;
  for (auto l : collectives::route(line, 2, 4)) links.push_back(l);
  CHECK(links == std::vector<collectives::Link>{{2, 3}, {3, 4}});
  auto r = collectives::route(line, 0, 3);
  CHECK(std::ranges::distance(r.begin(), r.end()) == 3);

  // The minimal topology with only the three members.
  CHECK(nodes(Minimal{}, 0, 3) == V{1, 2, 3});
}

TEST_CASE("user topology: bad parameters", "[topology][user]")
{
  CHECK_THROWS_AS(LinearArray{0}, std::invalid_argument);
  CHECK_THROWS_WITH(LinearArray{0}, Catch::Matchers::Contains("at least one node"));
}
