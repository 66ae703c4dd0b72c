// Run-time laws of the topologies, for every node of every ring and hypercube up to 256
// nodes, every mesh R x C of at most 256 nodes and a sample of 3-D tori:
//  - rank <-> coordinates is a bijection, numbered row-major (torus) or by bits (hypercube);
//  - neighbours are symmetric, are links, and change one coordinate by one;
//    on a hypercube the neighbour along i is rank XOR 2^i;
//  - distance is the true shortest-path distance (breadth-first search over neighbours),
//    symmetric and at most diameter(), which is attained;
//  - each route crosses only links, ends at the destination after distance() links, and
//    follows the documented order: dimension order (last dimension first on a torus, lowest
//    bit first on a hypercube), the short way round each ring, plus on a half-way tie;
//  - num_links counts the ordered pairs that are links, and the closed forms hold;
//  - bisection_width closed forms, and brute force over all balanced bipartitions;
//  - static and dynamic twins give identical answers;
//  - bad parameters throw std::invalid_argument naming the problem;
//  - the bit arithmetic the topologies and the estimate share (detail/bits.hpp, the
//    compilers' builtins) gives <bit>'s answers.
//
// Every law is checked by a plain function that returns the first violation as text
// (empty when none), so that the sweep costs one Catch assertion per topology. The sweep
// must run in well under 2 s unoptimised, so above 32 nodes the pairwise laws take their
// pairs from one or two sources (see sources()), and meshes of more than 128 nodes get every
// law only for a sample of shapes (see gets_every_law()); the others get the per-node
// coordinate law, the link count and the closed forms.

#include <catch2/catch.hpp>

#include <collectives/algorithm/tree/shape.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/schedule/rings.hpp>
#include <collectives/topology.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace collectives;

namespace {

using std::size_t;
constexpr size_t dyn = dynamic_extent;
using Torus3 = Torus<dyn, dyn, dyn>;

// ---------------------------------------------------------------------------------------
// Names and failure messages.
// ---------------------------------------------------------------------------------------

template <class T>
std::string name_of(const T& t)
{
  std::ostringstream s;
  if constexpr (requires { T::static_dims; }) {
    s << "Hypercube(" << t.ndims() << ")";
  } else {
    s << (t.ndims() == 1 ? "Ring(" : t.ndims() == 2 ? "Mesh(" : "Torus(");
    for (size_t i = 0; i < t.ndims(); ++i) s << (i ? "x" : "") << t.extent(i);
    s << ")";
  }
  if (static_size_v<T> != dynamic_extent) s << " [static]";
  return s.str();
}

/// Text of a violated law: "law (a=.., b=..)".
std::string fail(const std::string& law, size_t a, size_t b = dyn)
{
  std::ostringstream s;
  s << law << " (a=" << a;
  if (b != dyn) s << ", b=" << b;
  s << ")";
  return s.str();
}

// ---------------------------------------------------------------------------------------
// Which pairs are checked (the sweep must stay fast in an unoptimised build): all of them
// up to 32 nodes; up to 64 every destination from rank 0 and from the last rank, all of
// whose coordinates are maximal; above that every third destination and the last one, from
// rank 0 (every topology here is vertex-transitive, so rank 0 alone already sees every
// distance, and the symmetry law checks the pairs with rank 0 in both orders).
// ---------------------------------------------------------------------------------------

std::vector<size_t> sources(size_t p)
{
  std::vector<size_t> s;
  if (p <= 32) {
    for (size_t a = 0; a < p; ++a) s.push_back(a);
  } else if (p <= 64) {
    s = {0, p - 1};
  } else {
    s = {0};
  }
  return s;
}

std::vector<size_t> destinations(size_t p)
{
  std::vector<size_t> s;
  const size_t step = p <= 64 ? 1 : 3;
  for (size_t b = 0; b < p; b += step) s.push_back(b);
  if (s.back() != p - 1) s.push_back(p - 1);
  return s;
}

// ---------------------------------------------------------------------------------------
// Independent references.
// ---------------------------------------------------------------------------------------

/// Shortest-path distances from `source` by breadth-first search over neighbor().
template <class T>
std::vector<size_t> bfs(const T& t, size_t source)
{
  std::vector<size_t> d(t.size(), dyn);
  std::vector<size_t> queue{source};
  d[source] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    const size_t u = queue[head];
    for (size_t i = 0; i < t.ndims(); ++i)
      for (Direction dir : {Direction::plus, Direction::minus}) {
        const size_t v = t.neighbor(u, i, dir);
        if (d[v] == dyn) {
          d[v] = d[u] + 1;
          queue.push_back(v);
        }
      }
  }
  return d;
}

/// The one dimension in which a and b differ, or dyn if none or several.
template <class T>
size_t differing_dim(const T& t, size_t a, size_t b)
{
  size_t dim = dyn;
  for (size_t i = 0; i < t.ndims(); ++i)
    if (t.coord(a, i) != t.coord(b, i)) {
      if (dim != dyn) return dyn;
      dim = i;
    }
  return dim;
}

// ---------------------------------------------------------------------------------------
// The laws.
// ---------------------------------------------------------------------------------------

/// Coordinates: in range, a bijection, and the documented numbering.
template <class T>
std::string coordinate_laws(const T& t)
{
  const size_t p = t.size();
  size_t product = 1;
  for (size_t i = 0; i < t.ndims(); ++i) product *= t.extent(i);
  if (product != p) return "size() is not the product of the extents";

  // Documented numbering: row-major on a torus (last dimension fastest), bit i on a cube.
  constexpr bool is_cube = requires { T::static_dims; };
  for (size_t i = 0; i < t.ndims(); ++i) {
    const size_t expected = is_cube ? size_t{1} << i : (i + 1 == t.ndims() ? 1 : t.stride(i + 1) * t.extent(i + 1));
    if (t.stride(i) != expected) return fail("stride(i) is not the documented numbering", i);
    if (is_cube ? t.route_dim(i) != i : t.route_dim(i) != t.ndims() - 1 - i)
      return fail("route_dim(k) is not the documented routing order", i);
  }

  std::vector<bool> seen(p, false);
  for (size_t r = 0; r < p; ++r) {
    const auto c = t.coords(r);
    size_t rebuilt = 0;
    for (size_t i = 0; i < t.ndims(); ++i) {
      if (c[i] != t.coord(r, i)) return fail("coords(r)[i] != coord(r, i)", r, i);
      if (c[i] >= t.extent(i)) return fail("coordinate out of range", r, i);
      rebuilt += c[i] * t.stride(i);
    }
    if (rebuilt != r) return fail("rank != sum of coord * stride", r);
    const size_t back = t.rank_of(c);
    if (back != r) return fail("rank_of(coords(r)) != r", r);
    if (seen[back]) return fail("two ranks with the same coordinates", r);
    seen[back] = true;
  }
  return {};
}

/// Neighbours: symmetric, links, one coordinate changed by one; XOR on a hypercube.
template <class T>
std::string neighbor_laws(const T& t)
{
  constexpr bool is_cube = requires { T::static_dims; };
  for (size_t i = 0; i < t.ndims(); ++i) {
    const size_t z = t.extent(i);
    const size_t stride = t.stride(i);
    for (size_t r = 0; r < t.size(); ++r) {
      const size_t up = t.neighbor(r, i, Direction::plus);
      const size_t down = t.neighbor(r, i, Direction::minus);
      if (t.neighbor(up, i, Direction::minus) != r) return fail("neighbor(neighbor(r,i,plus),i,minus) != r", r, i);
      // Only coordinate i changes, by +1 / -1 modulo z (computed here from the stride); with
      // the line above this makes plus and minus inverse permutations.
      const size_t c = (r / stride) % z;
      if (up != r - c * stride + (c + 1) % z * stride || down != r - c * stride + (c + z - 1) % z * stride)
        return fail("a neighbour does not move one step along its dimension", r, i);
      if (t.shift_along(r, i, z + 1) != up) return fail("shift_along(r, i, z + 1) != neighbor(r, i, plus)", r, i);
      if (is_cube && up != (r ^ (size_t{1} << i))) return fail("hypercube neighbour != r XOR 2^i", r, i);
      // (The minus neighbour of r is the plus neighbour of another node; distance_laws
      // checks that distances are symmetric.)
      if (z > 1 && !t.is_link(r, up)) return fail("a neighbour is not a link", r, i);
      if (z == 1 && (up != r || down != r)) return fail("extent 1: the neighbour is not the node itself", r, i);
    }
  }
  return {};
}

/// Distances: true shortest paths (so symmetric and zero only on the diagonal), at most the
/// diameter, which is attained (by the node all of whose coordinates are extent / 2).
/// The truth is a breadth-first search over neighbor() up to 64 nodes, above that the sum
/// over dimensions of the shorter way round, computed here from the coordinates.
template <class T>
std::string distance_laws(const T& t)
{
  const size_t p = t.size();
  const size_t diameter = t.diameter();
  for (size_t a : sources(p)) {
    std::vector<size_t> truth(p, 0);
    if (p <= 64) {
      truth = bfs(t, a);
    } else {
      for (size_t b = 0; b < p; ++b)
        for (size_t i = 0; i < t.ndims(); ++i) {
          const size_t z = t.extent(i);
          const size_t forward = (t.coord(b, i) + z - t.coord(a, i)) % z;
          truth[b] += forward < z - forward ? forward : z - forward;
        }
    }
    for (size_t b : destinations(p)) {
      const size_t d = t.distance(a, b);
      if (d != truth[b]) return fail("distance != shortest-path distance", a, b);
      if (d != t.distance(b, a)) return fail("distance is not symmetric", a, b);
      if (d > diameter) return fail("distance > diameter", a, b);
    }
  }
  size_t antipode = 0;
  for (size_t i = 0; i < t.ndims(); ++i) antipode += t.extent(i) / 2 * t.stride(i);
  if (t.distance(0, antipode) != diameter) return fail("diameter is not attained", antipode, diameter);
  if (p > 1 && (hops(t, 0, p - 1) != t.distance(0, p - 1) || t.is_link(0, 0)))
    return "hops() or is_link() disagree with distance()";
  return {};
}

/// Routes, hop by hop: for a != b, next_hop(a, b) is a link, one step closer to b, along
/// the first dimension in routing order in which a and b differ, the short way round that
/// ring (plus on a half-way tie). By induction every route then crosses only links, ends at
/// b, has distance(a, b) links and follows the documented order; checking the hop alone
/// keeps the sweep cheap enough for every pair.
template <class T>
std::string hop_laws(const T& t)
{
  const size_t p = t.size();
  const size_t n = t.ndims();
  std::vector<size_t> order(n), extent(n), stride(n);
  for (size_t k = 0; k < n; ++k) {
    order[k] = t.route_dim(k);
    extent[k] = t.extent(order[k]);
    stride[k] = t.stride(order[k]);
  }
  for (size_t a : sources(p))
    for (size_t b : destinations(p)) {
      const size_t h = t.next_hop(a, b);
      if (a == b) {
        if (h != a) return fail("next_hop(a, a) != a", a, b);
        continue;
      }
      // The first dimension in routing order where a and b differ, and the expected hop.
      size_t k = 0;
      while ((a / stride[k]) % extent[k] == (b / stride[k]) % extent[k]) ++k;
      const size_t z = extent[k];
      const size_t ca = (a / stride[k]) % z;
      const size_t forward = ((b / stride[k]) % z + z - ca) % z;
      const size_t c2 = forward <= z - forward ? (ca + 1) % z : (ca + z - 1) % z; // plus on a tie
      if (h != a - ca * stride[k] + c2 * stride[k]) return fail("next_hop is not the documented hop", a, b);
      if (t.distance(h, b) + 1 != t.distance(a, b)) return fail("next_hop is not one step closer", a, b);
    }
  return {};
}

/// Routes, walked: contiguous links, ending at b after distance(a, b) of them, for every
/// pair when p <= 16, else from rank 0 to every node (p <= 64) or to a few.
template <class T>
std::string walk_laws(const T& t)
{
  const size_t p = t.size();
  std::vector<std::pair<size_t, size_t>> pairs;
  if (p <= 16) {
    for (size_t a = 0; a < p; ++a)
      for (size_t b = 0; b < p; ++b) pairs.emplace_back(a, b);
  } else if (p <= 64) {
    for (size_t b = 0; b < p; ++b) pairs.emplace_back(0, b);
  } else {
    pairs = {{0, p - 1}, {0, p / 2}, {p - 1, p / 3}};
  }
  for (auto [a, b] : pairs) {
    size_t at = a;
    size_t n = 0;
    for (Link l : route(t, a, b)) {
      if (n++ > p) return fail("route does not end", a, b);
      if (l.from != at || t.distance(l.from, l.to) != 1) return fail("route is not a chain of links", a, b);
      at = l.to;
    }
    if (at != b) return fail("route does not end at the destination", a, b);
    if (n != t.distance(a, b) || t.route(a, b).size() != n) return fail("route length != distance", a, b);
  }
  return {};
}

/// num_links: brute force over ordered pairs (p <= 64) and per-dimension count.
template <class T>
std::string link_count_laws(const T& t)
{
  const size_t p = t.size();
  size_t expected = 0;
  for (size_t i = 0; i < t.ndims(); ++i) {
    const size_t z = t.extent(i);
    expected += (p / z) * (z == 1 ? 0 : z == 2 ? 2 : 2 * z); // directed links of p/z rings of z
  }
  if (t.num_links() != expected) return fail("num_links != sum over dimensions", t.num_links(), expected);
  if (p <= 64) {
    size_t n = 0;
    for (size_t a = 0; a < p; ++a)
      for (size_t b = 0; b < p; ++b) n += t.is_link(a, b) ? 1 : 0;
    if (n != t.num_links()) return fail("num_links != ordered pairs that are links", t.num_links(), n);
  }
  return {};
}

template <class T>
std::string all_laws(const T& t)
{
  for (auto law : {coordinate_laws<T>, neighbor_laws<T>, distance_laws<T>, hop_laws<T>, walk_laws<T>, link_count_laws<T>}) {
    std::string problem = law(t);
    if (!problem.empty()) return name_of(t) + ": " + problem;
  }
  return {};
}

/// Everything a static type and its dynamic twin answer, compared for every node and pair.
template <class S, class D>
std::string same_answers(const S& s, const D& d)
{
  if (s.size() != d.size() || s.ndims() != d.ndims() || s.diameter() != d.diameter() ||
      s.num_links() != d.num_links() || s.bisection_width() != d.bisection_width())
    return name_of(s) + ": a global fact differs from the dynamic twin";
  for (size_t i = 0; i < s.ndims(); ++i)
    if (s.extent(i) != d.extent(i) || s.stride(i) != d.stride(i) || s.route_dim(i) != d.route_dim(i))
      return name_of(s) + ": " + fail("a per-dimension fact differs from the dynamic twin", i);
  const size_t p = s.size();
  for (size_t a = 0; a < p; ++a) {
    for (size_t i = 0; i < s.ndims(); ++i)
      if (s.coord(a, i) != d.coord(a, i) || s.neighbor(a, i, Direction::plus) != d.neighbor(a, i, Direction::plus) ||
          s.neighbor(a, i, Direction::minus) != d.neighbor(a, i, Direction::minus))
        return name_of(s) + ": " + fail("a per-node fact differs from the dynamic twin", a, i);
    for (size_t b = 0; b < p; ++b)
      if (s.distance(a, b) != d.distance(a, b) || s.next_hop(a, b) != d.next_hop(a, b) ||
          s.is_link(a, b) != d.is_link(a, b))
        return name_of(s) + ": " + fail("a per-pair fact differs from the dynamic twin", a, b);
  }
  return {};
}

// ---------------------------------------------------------------------------------------
// Bisection by brute force: the fewest undirected links cut by any split of the nodes into
// floor(p/2) and ceil(p/2) (p <= 20).
// ---------------------------------------------------------------------------------------
template <class T>
size_t brute_force_bisection(const T& t)
{
  const size_t p = t.size();
  if (p < 2) return 0;
  std::vector<std::pair<size_t, size_t>> edges;
  for (size_t a = 0; a < p; ++a)
    for (size_t b = a + 1; b < p; ++b)
      if (t.is_link(a, b)) edges.emplace_back(a, b);
  const size_t half = p / 2;
  size_t best = std::numeric_limits<size_t>::max();
  // Every subset of exactly `half` nodes, in increasing order (Gosper's hack).
  for (std::uint32_t m = (std::uint32_t{1} << half) - 1; m < (std::uint32_t{1} << p);) {
    size_t cut = 0;
    for (auto [a, b] : edges) cut += ((m >> a) ^ (m >> b)) & 1u;
    best = cut < best ? cut : best;
    const std::uint32_t low = m & (~m + 1);
    const std::uint32_t ripple = m + low;
    m = (((ripple ^ m) >> 2) / low) | ripple;
  }
  return best;
}

// ---------------------------------------------------------------------------------------
// The sweeps.
// ---------------------------------------------------------------------------------------

/// All meshes R x C with R*C <= 256 (including 1 x n, n x 1, 2 x n).
std::vector<std::pair<size_t, size_t>> all_mesh_shapes()
{
  std::vector<std::pair<size_t, size_t>> shapes;
  for (size_t r = 1; r <= 256; ++r)
    for (size_t c = 1; r * c <= 256; ++c) shapes.emplace_back(r, c);
  return shapes;
}

/// Meshes that get every law; the others (more than 128 nodes) get the coordinate law for
/// every node, the link count and the closed forms, to keep the sweep fast in an
/// unoptimised build. Every shape of at most 128 nodes, and above that 1 x n, n x 1, 2 x n,
/// n x 2, the squares, every factorisation of 256 and a few odd shapes.
bool gets_every_law(size_t r, size_t c)
{
  if (r * c <= 128 || r == c || r * c == 256) return true;
  constexpr std::array<std::pair<size_t, size_t>, 14> sample{{{1, 129}, {1, 200}, {1, 255}, {129, 1}, {255, 1},
                                                              {2, 65}, {2, 127}, {65, 2}, {127, 2}, {3, 85},
                                                              {85, 3}, {15, 17}, {17, 15}, {11, 23}}};
  for (auto [sr, sc] : sample)
    if (sr == r && sc == c) return true;
  return false;
}

/// A sample of 3-D tori up to 256 nodes.
std::vector<std::array<size_t, 3>> torus_shapes()
{
  std::vector<std::array<size_t, 3>> shapes;
  for (size_t a : {1, 2, 3, 4, 5, 8})
    for (size_t b : {1, 2, 3, 4, 6})
      for (size_t c : {1, 2, 3, 5, 8})
        if (a * b * c <= 256) shapes.push_back({a, b, c});
  shapes.push_back({4, 4, 16});
  shapes.push_back({16, 4, 4});
  shapes.push_back({6, 6, 7});
  return shapes;
}

} // namespace

TEST_CASE("topology laws: every ring of 1..256 nodes", "[topology][laws]")
{
  for (size_t p = 1; p <= 256; ++p) {
    const Ring<> t{p};
    REQUIRE(t.size() == p);
    CHECK(all_laws(t) == "");
    CHECK(t.diameter() == p / 2);
    CHECK(t.num_links() == (p >= 3 ? 2 * p : p == 2 ? 2 : 0));
    CHECK(t.bisection_width() == (p >= 3 ? 2 : p == 2 ? 1 : 0));
  }
}

TEST_CASE("topology laws: every mesh R x C of at most 256 nodes", "[topology][laws]")
{
  for (auto [r, c] : all_mesh_shapes()) {
    const Mesh<> t{r, c};
    INFO("mesh " << r << " x " << c);
    REQUIRE(t.size() == r * c);
    if (gets_every_law(r, c)) {
      CHECK(all_laws(t) == "");
    } else {
      CHECK(coordinate_laws(t) == "");
      CHECK(link_count_laws(t) == "");
      CHECK(t.distance(0, (r / 2) * c + c / 2) == t.diameter());
    }
    CHECK(t.diameter() == r / 2 + c / 2);
    if (r == c && r >= 3) CHECK(t.num_links() == 4 * r * r);
    if (r == c && r >= 4 && r % 2 == 0) CHECK(t.bisection_width() == 2 * r);
    if (r == 1) CHECK(t.bisection_width() == Ring<>{c}.bisection_width()); // a 1 x n mesh is a ring
    if (r == 1) CHECK(t.num_links() == Ring<>{c}.num_links());
  }
}

TEST_CASE("topology laws: a sample of 3-D tori", "[topology][laws]")
{
  for (auto [a, b, c] : torus_shapes()) {
    const Torus3 t{a, b, c};
    CHECK(all_laws(t) == "");
    CHECK(t.diameter() == a / 2 + b / 2 + c / 2);
  }
}

TEST_CASE("topology laws: every hypercube of 0..8 dimensions", "[topology][laws]")
{
  for (size_t d = 0; d <= 8; ++d) {
    const Hypercube<> t = Hypercube<>::of_dims(d);
    const size_t p = size_t{1} << d;
    REQUIRE(t.size() == p);
    REQUIRE(t.ndims() == d);
    CHECK(all_laws(t) == "");
    CHECK(t.diameter() == d);
    CHECK(t.num_links() == d * p);
    CHECK(t.bisection_width() == p / 2);
    CHECK(Hypercube<>::of_size(p) == t);
    for (size_t r = 0; r < p; ++r)
      for (size_t i = 0; i < d; ++i) REQUIRE(t.neighbor(r, i) == (r ^ (size_t{1} << i)));
    // A hypercube of 2^d nodes has the same shape as the torus 2 x 2 x ... x 2.
    if (d == 3) CHECK(t.num_links() == Torus3{2, 2, 2}.num_links());
  }
}

TEST_CASE("topology laws: static and dynamic twins agree", "[topology][laws][static]")
{
  CHECK(same_answers(Ring<1>{}, Ring<>{1}) == "");
  CHECK(same_answers(Ring<2>{}, Ring<>{2}) == "");
  CHECK(same_answers(Ring<7>{}, Ring<>{7}) == "");
  CHECK(same_answers(Ring<8>{}, Ring<>{8}) == "");
  CHECK(same_answers(Ring<256>{}, Ring<>{256}) == "");
  CHECK(same_answers(Mesh<1, 6>{}, Mesh<>{1, 6}) == "");
  CHECK(same_answers(Mesh<2, 5>{}, Mesh<>{2, 5}) == "");
  CHECK(same_answers(Mesh<3, 5>{}, Mesh<>{3, 5}) == "");
  CHECK(same_answers(Mesh<4, 4>{}, Mesh<>{4, 4}) == "");
  CHECK(same_answers(Mesh<16, 16>{}, Mesh<>{16, 16}) == "");
  CHECK(same_answers(Mesh<4, dyn>{6}, Mesh<>{4, 6}) == "");
  CHECK(same_answers(Mesh<dyn, 4>{6}, Mesh<>{6, 4}) == "");
  CHECK(same_answers(Torus<2, 3, 4>{}, Torus3{2, 3, 4}) == "");
  CHECK(same_answers(Torus<dyn, 3, dyn>{2, 4}, Torus3{2, 3, 4}) == "");
  CHECK(same_answers(Hypercube<0>{}, Hypercube<>::of_dims(0)) == "");
  CHECK(same_answers(Hypercube<1>{}, Hypercube<>::of_dims(1)) == "");
  CHECK(same_answers(Hypercube<3>{}, Hypercube<>::of_dims(3)) == "");
  CHECK(same_answers(Hypercube<6>{}, Hypercube<>::of_dims(6)) == "");

  // The static types obey the same laws.
  CHECK(all_laws(Ring<7>{}) == "");
  CHECK(all_laws(Ring<8>{}) == "");
  CHECK(all_laws(Mesh<3, 5>{}) == "");
  CHECK(all_laws(Mesh<16, 16>{}) == "");
  CHECK(all_laws(Mesh<4, dyn>{6}) == "");
  CHECK(all_laws(Torus<2, 3, 4>{}) == "");
  CHECK(all_laws(Hypercube<0>{}) == "");
  CHECK(all_laws(Hypercube<5>{}) == "");

  // Converted topologies are the same topology.
  CHECK(Ring<>{Ring<8>{}} == Ring<>{8});
  CHECK(Mesh<>{Mesh<4, dyn>{6}} == Mesh<>{4, 6});
  CHECK(Hypercube<>{Hypercube<5>{}} == Hypercube<>::of_dims(5));
  CHECK(Ring<8>{Ring<>{8}} == Ring<8>{});
  CHECK(Mesh<4, 6>{Mesh<>{4, 6}}.size() == 24);
  CHECK(Mesh<4, dyn>{4, 6} == Mesh<4, dyn>{6}); // all extents, or the dynamic ones only
}

TEST_CASE("topology laws: bisection width against brute force", "[topology][laws]")
{
  // Rings and hypercubes up to 16 nodes: no balanced bipartition cuts fewer links.
  for (size_t p = 1; p <= 16; ++p) {
    INFO("ring of " << p);
    CHECK(Ring<>{p}.bisection_width() == brute_force_bisection(Ring<>{p}));
  }
  for (size_t d = 0; d <= 4; ++d) {
    INFO("hypercube of dimension " << d);
    CHECK(Hypercube<>::of_dims(d).bisection_width() == brute_force_bisection(Hypercube<>::of_dims(d)));
  }
  // Tori up to 16 nodes whose extents are all even: the documented cut (across one
  // dimension) is a true bisection.
  for (auto [r, c] : all_mesh_shapes())
    if (r * c <= 16 && r % 2 == 0 && c % 2 == 0) {
      INFO("mesh " << r << " x " << c);
      CHECK(Mesh<>{r, c}.bisection_width() == brute_force_bisection(Mesh<>{r, c}));
    }
  CHECK(Torus3{2, 2, 2}.bisection_width() == brute_force_bisection(Torus3{2, 2, 2}));
  CHECK(Torus3{2, 2, 4}.bisection_width() == brute_force_bisection(Torus3{2, 2, 4}));
  CHECK(Torus3{4, 2, 2}.bisection_width() == brute_force_bisection(Torus3{4, 2, 2}));
  // With an even number of nodes the documented cut is a balanced cut, so it is never below
  // the true bisection width (it can be above: on 2 x 7 a staircase cut severs 5 links,
  // the cut across the extent-2 dimension 7).
  for (auto [r, c] : all_mesh_shapes())
    if (r * c <= 16 && (r * c) % 2 == 0) {
      INFO("mesh " << r << " x " << c);
      CHECK(Mesh<>{r, c}.bisection_width() >= brute_force_bisection(Mesh<>{r, c}));
    }
  // Closed forms.
  for (size_t k = 4; k <= 16; k += 2) CHECK(Mesh<>{k, k}.bisection_width() == 2 * k);
  for (size_t p = 3; p <= 256; ++p) CHECK(Ring<>{p}.bisection_width() == 2);
}

TEST_CASE("topology laws: routing follows the documented tie rules", "[topology][laws][route]")
{
  auto nodes = [](const auto& t, size_t a, size_t b) {
    std::vector<size_t> v;
    for (Link l : route(t, a, b)) v.push_back(l.to);
    return v;
  };
  using V = std::vector<size_t>;

  SECTION("ring: the short way round, plus on a half-way tie")
  {
    const Ring<> t{8};
    CHECK(nodes(t, 0, 4) == V{1, 2, 3, 4}); // tie: plus
    CHECK(nodes(t, 4, 0) == V{5, 6, 7, 0}); // tie: plus, wrapping
    CHECK(nodes(t, 6, 2) == V{7, 0, 1, 2});
    CHECK(nodes(t, 0, 5) == V{7, 6, 5});
    CHECK(nodes(t, 1, 3) == V{2, 3});
    CHECK(nodes(t, 3, 3).empty());
    CHECK(nodes(Ring<>{7}, 0, 4) == V{6, 5, 4}); // odd: never a tie
    CHECK(nodes(Ring<>{7}, 0, 3) == V{1, 2, 3});
    CHECK(nodes(Ring<>{2}, 1, 0) == V{0});
  }
  SECTION("mesh: last dimension (within the row) first, then the column")
  {
    const Mesh<> t{4, 4};
    CHECK(nodes(t, 0, 10) == V{1, 2, 6, 10});   // (0,0) -> (2,2): ties, plus both
    CHECK(nodes(t, 10, 0) == V{11, 8, 12, 0});  // (2,2) -> (0,0): ties, plus, wrapping
    CHECK(nodes(t, 0, 15) == V{3, 15});         // (0,0) -> (3,3): minus both
    CHECK(nodes(t, 5, 7) == V{6, 7});           // same row
    CHECK(nodes(t, 1, 9) == V{5, 9});           // same column
    const Mesh<> wide{3, 5};
    CHECK(nodes(wide, 0, 13) == V{4, 3, 13}); // (0,0) -> (2,3): columns minus, rows minus
    CHECK(nodes(wide, 0, 8) == V{4, 3, 8});   // (0,0) -> (1,3): columns minus, rows plus
    CHECK(nodes(Mesh<>{1, 6}, 0, 3) == V{1, 2, 3});
    CHECK(nodes(Mesh<>{6, 1}, 0, 3) == V{1, 2, 3});
    CHECK(nodes(Mesh<>{2, 6}, 0, 9) == V{1, 2, 3, 9});
  }
  SECTION("torus: dimension order from the last dimension to the first")
  {
    const Torus3 t{2, 3, 4}; // strides 12, 4, 1
    CHECK(nodes(t, 0, 23) == V{3, 11, 23});  // (0,0,0) -> (1,2,3)
    CHECK(nodes(t, 0, 14) == V{1, 2, 14});   // (0,0,0) -> (1,0,2): tie in the last dimension
    CHECK(nodes(t, 23, 0) == V{20, 12, 0});  // (1,2,3) -> (0,0,0): plus, plus, then dimension 0
    CHECK(nodes(t, 5, 17) == V{17});         // (0,1,1) -> (1,1,1)
  }
  SECTION("hypercube: E-cube, lowest bit first")
  {
    const Hypercube<> t = Hypercube<>::of_dims(4);
    CHECK(nodes(t, 0, 15) == V{1, 3, 7, 15});
    CHECK(nodes(t, 15, 0) == V{14, 12, 8, 0});
    CHECK(nodes(t, 5, 10) == V{4, 6, 2, 10});
    CHECK(nodes(t, 8, 9) == V{9});
    CHECK(nodes(t, 6, 6).empty());
    CHECK(t.next_hop(12, 3) == 13);
  }
}

TEST_CASE("topology laws: bad parameters throw std::invalid_argument naming the problem", "[topology][laws][errors]")
{
  using Catch::Matchers::Contains;

  CHECK_THROWS_AS(Ring<>{0}, std::invalid_argument);
  CHECK_THROWS_WITH(Ring<>{0}, Contains("every extent must be at least 1"));
  CHECK_THROWS_WITH(Ring<>{-3}, Contains("every extent must be at least 1"));
  CHECK_THROWS_AS((Mesh<>{0, 3}), std::invalid_argument);
  CHECK_THROWS_WITH((Mesh<>{0, 3}), Contains("every extent must be at least 1"));
  CHECK_THROWS_WITH((Mesh<>{3, 0}), Contains("every extent must be at least 1"));
  CHECK_THROWS_WITH((Torus3{2, 0, 2}), Contains("every extent must be at least 1"));

  CHECK_THROWS_AS(Hypercube<>::of_dims(64), std::invalid_argument);
  CHECK_THROWS_WITH(Hypercube<>::of_dims(64), Contains("between 0 and 63"));
  CHECK_THROWS_AS(Hypercube<>::of_dims(-1), std::invalid_argument);
  CHECK_THROWS_WITH(Hypercube<>::of_dims(-1), Contains("between 0 and 63"));
  CHECK_NOTHROW(Hypercube<>::of_dims(63));
  CHECK(Hypercube<>::of_dims(63).size() == size_t{1} << 63);

  CHECK_THROWS_AS(Ring<7>{Ring<>{8}}, std::invalid_argument);
  CHECK_THROWS_WITH(Ring<7>{Ring<>{8}}, Contains("does not match"));
  CHECK_THROWS_WITH((Mesh<4, 4>{Mesh<>{4, 5}}), Contains("does not match"));
  CHECK_THROWS_WITH(Hypercube<3>{Hypercube<>::of_dims(4)}, Contains("does not match"));
  CHECK_THROWS_WITH(Ring<8>{9}, Contains("differs from the static extent"));
  CHECK_THROWS_WITH((Mesh<4, dyn>{5, 5}), Contains("differs from the static extent"));
  CHECK_THROWS_WITH(Hypercube<3>::of_dims(4), Contains("differs from the static one"));
  CHECK_THROWS_WITH(Hypercube<>::of_size(6), Contains("power of two"));
  CHECK_THROWS_WITH(Hypercube<>::of_size(0), Contains("power of two"));

  // Sizes that do not fit in std::size_t.
  const size_t big = size_t{1} << 32;
  CHECK_THROWS_WITH((Mesh<>{big, big}), Contains("does not fit"));
  // ... but 2^63 nodes do, whatever the integer type the extent is given in.
  CHECK(Ring<>{size_t{1} << 63}.size() == size_t{1} << 63);
  CHECK((Mesh<>{size_t{1} << 31, size_t{1} << 32}.size()) == size_t{1} << 63);

  // Coordinates and ranks out of range.
  CHECK_THROWS_WITH((Mesh<>{3, 5}.rank_of({3, 0})), Contains("coordinate out of range"));
  CHECK_THROWS_WITH((Hypercube<>::of_dims(3).rank_of(std::array<size_t, 3>{0, 2, 0})), Contains("coordinate out of range"));
  CHECK_THROWS_AS(Ring<>{5}.check_rank(5), std::out_of_range);
  CHECK_NOTHROW(Ring<>{5}.check_rank(4));

  // A node or dimension the topology does not have, in any function of one: an exception
  // naming it (neighbor(7, 0) answered 8, neighbor(0, 3) read past the extents, coords(12)
  // answered, route(0, 7) never ended; Hypercube::rank_of cut or padded coordinates).
  const Ring<> ring5(5);
  CHECK_THROWS_WITH(ring5.neighbor(7, 0), Contains("neighbor: node 7 is not a node of a topology of 5 nodes"));
  CHECK_THROWS_WITH(ring5.neighbor(0, 3), Contains("neighbor: dimension 3 is not one of the topology's 1"));
  CHECK_THROWS_AS(ring5.coords(12), std::invalid_argument);
  CHECK_THROWS_WITH(ring5.route(0, 7), Contains("route: node 7 is not a node"));
  CHECK_THROWS_AS(route(ring5, 9, 0), std::invalid_argument);
  CHECK(ring5.route(0, 4).size() == 1);
  const auto cube3 = Hypercube<>::of_dims(3);
  CHECK_THROWS_AS(cube3.neighbor(9, 1), std::invalid_argument);
  CHECK_THROWS_AS(cube3.neighbor(1, 3), std::invalid_argument);
  CHECK_THROWS_AS(cube3.coords(8), std::invalid_argument);
  CHECK_THROWS_WITH(cube3.rank_of(std::array<size_t, 5>{1, 1, 1, 1, 1}), Contains("one coordinate per dimension"));
  CHECK_THROWS_WITH(cube3.rank_of(std::array<size_t, 1>{1}), Contains("one coordinate per dimension"));
  CHECK(cube3.rank_of(cube3.coords(5)) == 5); // coords()' longer array, zeros past ndims()
  CHECK(cube3.rank_of(std::array<size_t, 3>{1, 0, 1}) == 5);
  const Grid grid({3, 4}, {true, false});
  CHECK_THROWS_AS(grid.coords(12), std::invalid_argument);
  CHECK_THROWS_AS(grid.route(12, 0), std::invalid_argument);

  // Counts derived from sizes the constructors accept, that do not fit std::size_t: an
  // error, not a wrapped-around number (Ring<>{2^63 + 1} had 2 links).
  static_assert(Hypercube<57>{}.num_links() == std::size_t{57} << 57);
  CHECK_THROWS_WITH(Hypercube<>::of_dims(63).num_links(), Contains("number of links does not fit"));
  CHECK_THROWS_AS(Ring<>{(size_t{1} << 63) + 1}.num_links(), std::invalid_argument);
  CHECK(Ring<>{size_t{1} << 62}.num_links() == size_t{1} << 63);
  const Grid lines({size_t{1} << 61, 2}, {false, false});
  CHECK(lines.num_links() == ((size_t{1} << 61) - 1) * 4 + (size_t{1} << 62));
  CHECK_THROWS_AS((Grid({size_t{1} << 62, 2}, {false, false}).num_links()), std::invalid_argument);
}

TEST_CASE("topology laws: the library's bit arithmetic agrees with <bit>", "[topology][laws]")
{
  // detail::popcount, countr_zero and bit_width are the compilers' builtins (cheaper in
  // constant evaluation); they must give <bit>'s answers, 0 and the top bit included.
  std::vector<std::size_t> values{0, 1, 2, 3, std::numeric_limits<std::size_t>::max()};
  for (std::size_t b = 0; b < std::numeric_limits<std::size_t>::digits; ++b)
    for (std::size_t x : {std::size_t{1} << b, (std::size_t{1} << b) - 1, (std::size_t{1} << b) + 1,
                          (std::size_t{1} << b) ^ 0x5555555555555555u})
      values.push_back(x);
  for (std::size_t x : values) {
    INFO("x = " << x);
    CHECK(detail::popcount(x) == static_cast<std::size_t>(std::popcount(x)));
    CHECK(detail::countr_zero(x) == static_cast<std::size_t>(std::countr_zero(x)));
    CHECK(detail::bit_width(x) == static_cast<std::size_t>(std::bit_width(x)));
    CHECK(detail::is_power_of_two(x) == std::has_single_bit(x));
    CHECK(detail::pow2_floor(x) == std::bit_floor(x));
  }
  static_assert(detail::popcount(0b1011) == 3 && detail::countr_zero(8) == 3 && detail::bit_width(8) == 4);
  static_assert(detail::countr_zero(0) == std::numeric_limits<std::size_t>::digits && detail::bit_width(0) == 0);
}

namespace {
/// Every entry of a rings value made in constant evaluation is zero, the unused ones too
/// (a constexpr value must be fully initialised; at run time they are left unset).
constexpr bool all_zero_past(const Rings& r)
{
  for (std::size_t i = r.count; i < Rings::max_dims; ++i)
    if (r.extents[i] != 0 || r.strides[i] != 0) return false;
  return true;
}
constexpr bool all_zero_past(const TreeShape& s)
{
  for (std::size_t i = s.ndims; i < Rings::max_dims; ++i)
    if (s.extent[i] != 0 || s.stride[i] != 0) return false;
  return true;
}
static_assert(all_zero_past(Rings{}) && all_zero_past(rings_of(Mesh<3, 4>{})));
static_assert(all_zero_past(TreeShape{}) && all_zero_past(ring_shape(5)) && all_zero_past(bits_shape(16)) &&
              all_zero_past(topology_shape(Torus<2, 3, 4>{})));
constexpr Rings mesh_rings = rings_of(Mesh<3, 4>{});
static_assert(mesh_rings.ndims() == 2 && mesh_rings.size() == 12);
} // namespace

TEST_CASE("topology laws: rings and tree shapes are equal when their rings are, whatever lies past them",
          "[topology][laws]")
{
  // The entries past count (ndims) are not set at run time: a kept plan compares the
  // schedule of every call with its own, and must not see them.
  Rings a = rings_of(Mesh<>{3, 4});
  Rings b = rings_of(Mesh<>{3, 4});
  a.extents[5] = 7;
  b.extents[5] = 9;
  b.strides[31] = 1;
  CHECK(a == b);
  b.strides[1] = 2;
  CHECK_FALSE(a == b);
  CHECK_FALSE(rings_of(Mesh<>{3, 4}) == rings_of(Mesh<>{4, 3}));
  CHECK_FALSE(rings_of(Mesh<>{3, 4}) == rings_of(Torus{3, 4, 2}));

  TreeShape s = ring_shape(6);
  TreeShape t = ring_shape(6);
  s.extent[3] = 5;
  t.stride[20] = 8;
  CHECK(s == t);
  CHECK_FALSE(ring_shape(6) == ring_shape(7));
  CHECK_FALSE(bits_shape(8) == topology_shape(Mesh<>{2, 4}));
  CHECK(bits_shape(8) == topology_shape(Hypercube<>::of_dims(3)));
}
