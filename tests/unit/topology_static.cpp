// The static tier of the topologies: facts of fully static Ring, Mesh, Torus and Hypercube
// computed by the compiler (static_assert), the layout promise (a fully static topology is an
// empty type, a partly dynamic one stores exactly its run-time extents), the proof that a
// static topology passed BY VALUE still yields constant expressions, and the conversion
// rules (static -> dynamic implicit, dynamic -> static explicit only).
//
// Everything here is checked when the file compiles; the TEST_CASEs at the end register the
// file with Catch and repeat a few of the facts at run time on the dynamic twins.

#include <catch2/catch.hpp>

#include <collectives/topology.hpp>

#include <array>
#include <stdexcept>
#include <cstddef>
#include <type_traits>

using namespace collectives;

namespace {

using std::size_t;
constexpr size_t dyn_extent = dynamic_extent;

// ---------------------------------------------------------------------------------------
// Helpers usable in constant expressions.
// ---------------------------------------------------------------------------------------

/// The ranks a route visits after the source, in order (unused tail left at 0).
template <class T, size_t N>
constexpr std::array<size_t, N> route_nodes(const T& t, size_t from, size_t to)
{
  std::array<size_t, N> nodes{};
  size_t k = 0;
  for (Link l : t.route(from, to)) {
    if (k < N) nodes[k] = l.to;
    ++k;
  }
  return nodes;
}

/// Every link of every route is a link of the topology (distance 1), starts where the
/// previous one ended, and the route ends at the destination after distance(a, b) links.
/// Sources are every `source_step`-th rank (clang's constant evaluator has a step limit).
template <class T>
constexpr bool routes_are_shortest(const T& t, size_t source_step = 1)
{
  for (size_t a = 0; a < t.size(); a += source_step)
    for (size_t b = 0; b < t.size(); ++b) {
      size_t at = a;
      size_t n = 0;
      for (Link l : route(t, a, b)) {
        if (l.from != at || !t.is_link(l.from, l.to)) return false;
        at = l.to;
        ++n;
      }
      if (at != b || n != t.distance(a, b) || t.route(a, b).size() != n) return false;
    }
  return true;
}

/// rank_of(coords(r)) == r for every rank.
template <class T>
constexpr bool coords_round_trip(const T& t)
{
  for (size_t r = 0; r < t.size(); ++r)
    if (t.rank_of(t.coords(r)) != r) return false;
  return true;
}

/// Number of ordered pairs (a, b) that are links.
template <class T>
constexpr size_t count_links(const T& t)
{
  size_t n = 0;
  for (size_t a = 0; a < t.size(); ++a)
    for (size_t b = 0; b < t.size(); ++b) n += t.is_link(a, b) ? 1 : 0;
  return n;
}

/// The largest distance between two nodes.
template <class T>
constexpr size_t max_distance(const T& t)
{
  size_t d = 0;
  for (size_t a = 0; a < t.size(); ++a)
    for (size_t b = 0; b < t.size(); ++b) d = t.distance(a, b) > d ? t.distance(a, b) : d;
  return d;
}

template <size_t... V>
constexpr std::array<size_t, sizeof...(V)> arr{V...};

// ---------------------------------------------------------------------------------------
// Ring<8>
// ---------------------------------------------------------------------------------------
constexpr Ring<8> ring8{};
static_assert(ring8.size() == 8);
static_assert(ring8.ndims() == 1);
static_assert(ring8.extent(0) == 8);
static_assert(ring8.stride(0) == 1);
static_assert(ring8.coords(5) == arr<5>);
static_assert(ring8.coord(5, 0) == 5);
static_assert(ring8.rank_of(arr<6>) == 6);
static_assert(ring8.neighbor(7, 0, Direction::plus) == 0);
static_assert(ring8.neighbor(0, 0, Direction::minus) == 7);
static_assert(ring8.neighbor(3, 0) == 4); // plus by default
static_assert(ring8.shift_along(6, 0, 3) == 1);
static_assert(ring8.distance(0, 3) == 3);
static_assert(ring8.distance(0, 4) == 4);
static_assert(ring8.distance(0, 5) == 3);
static_assert(ring8.distance(6, 1) == 3);
static_assert(ring8.diameter() == 4);
static_assert(ring8.num_links() == 16);
static_assert(ring8.bisection_width() == 2);
static_assert(ring8.next_hop(0, 3) == 1);
static_assert(ring8.next_hop(0, 5) == 7);
static_assert(ring8.next_hop(0, 4) == 1); // half-way tie: plus direction
static_assert(ring8.next_hop(5, 1) == 6); // half-way tie from 5: plus, 5 -> 6 -> 7 -> 0 -> 1
static_assert(ring8.next_hop(2, 2) == 2);
static_assert(ring8.route(0, 4).size() == 4);
static_assert(ring8.route(3, 3).size() == 0);
static_assert(route_nodes<Ring<8>, 4>(ring8, 0, 4) == arr<1, 2, 3, 4>);
static_assert(route_nodes<Ring<8>, 3>(ring8, 1, 6) == arr<0, 7, 6>);
static_assert(hops(ring8, 1, 6) == 3);
static_assert(ring8.is_link(7, 0) && ring8.is_link(0, 7) && !ring8.is_link(0, 2) && !ring8.is_link(0, 0));
static_assert(routes_are_shortest(ring8));
static_assert(coords_round_trip(ring8));
static_assert(count_links(ring8) == ring8.num_links());
static_assert(max_distance(ring8) == ring8.diameter());

// ---------------------------------------------------------------------------------------
// Ring<7>: odd, so no ties.
// ---------------------------------------------------------------------------------------
constexpr Ring<7> ring7{};
static_assert(ring7.size() == 7);
static_assert(ring7.ndims() == 1);
static_assert(ring7.extent(0) == 7);
static_assert(ring7.coords(6) == arr<6>);
static_assert(ring7.neighbor(6, 0, Direction::plus) == 0);
static_assert(ring7.neighbor(0, 0, Direction::minus) == 6);
static_assert(ring7.distance(0, 3) == 3);
static_assert(ring7.distance(0, 4) == 3);
static_assert(ring7.distance(5, 1) == 3);
static_assert(ring7.diameter() == 3);
static_assert(ring7.num_links() == 14);
static_assert(ring7.bisection_width() == 2);
static_assert(ring7.next_hop(0, 3) == 1);
static_assert(ring7.next_hop(0, 4) == 6);
static_assert(ring7.route(0, 4).size() == 3);
static_assert(route_nodes<Ring<7>, 3>(ring7, 0, 4) == arr<6, 5, 4>);
static_assert(routes_are_shortest(ring7));
static_assert(coords_round_trip(ring7));
static_assert(count_links(ring7) == ring7.num_links());
static_assert(max_distance(ring7) == ring7.diameter());

// ---------------------------------------------------------------------------------------
// Mesh<4,4>: 4 rows of 4, row-major, wraparound in both dimensions.
// ---------------------------------------------------------------------------------------
constexpr Mesh<4, 4> mesh44{};
static_assert(mesh44.size() == 16);
static_assert(mesh44.ndims() == 2);
static_assert(mesh44.extent(0) == 4 && mesh44.extent(1) == 4);
static_assert(mesh44.stride(0) == 4 && mesh44.stride(1) == 1);
static_assert(mesh44.coords(6) == arr<1, 2>);
static_assert(mesh44.coords(15) == arr<3, 3>);
static_assert(mesh44.rank_of(arr<2, 3>) == 11);
static_assert(mesh44.neighbor(3, 1, Direction::plus) == 0);   // wraps within the row
static_assert(mesh44.neighbor(0, 0, Direction::minus) == 12); // wraps within the column
static_assert(mesh44.neighbor(5, 0, Direction::plus) == 9);
static_assert(mesh44.distance(0, 10) == 4);
static_assert(mesh44.distance(0, 15) == 2);
static_assert(mesh44.distance(5, 6) == 1);
static_assert(mesh44.diameter() == 4);
static_assert(mesh44.num_links() == 64); // 4 k^2
static_assert(mesh44.bisection_width() == 8); // 2 k
static_assert(mesh44.next_hop(0, 10) == 1);  // last dimension first; tie: plus
static_assert(mesh44.next_hop(0, 15) == 3);  // column 0 -> 3 the short way (minus)
static_assert(mesh44.next_hop(0, 12) == 12); // same column: then the row dimension
static_assert(mesh44.route(0, 10).size() == 4);
static_assert(route_nodes<Mesh<4, 4>, 4>(mesh44, 0, 10) == arr<1, 2, 6, 10>); // XY: columns first
static_assert(route_nodes<Mesh<4, 4>, 2>(mesh44, 0, 15) == arr<3, 15>);
static_assert(routes_are_shortest(mesh44));
static_assert(coords_round_trip(mesh44));
static_assert(count_links(mesh44) == mesh44.num_links());
static_assert(max_distance(mesh44) == mesh44.diameter());

// ---------------------------------------------------------------------------------------
// Mesh<3,5>: 3 rows of 5.
// ---------------------------------------------------------------------------------------
constexpr Mesh<3, 5> mesh35{};
static_assert(mesh35.size() == 15);
static_assert(mesh35.ndims() == 2);
static_assert(mesh35.extent(0) == 3 && mesh35.extent(1) == 5);
static_assert(mesh35.stride(0) == 5 && mesh35.stride(1) == 1);
static_assert(mesh35.coords(7) == arr<1, 2>);
static_assert(mesh35.coords(14) == arr<2, 4>);
static_assert(mesh35.rank_of(arr<2, 1>) == 11);
static_assert(mesh35.neighbor(4, 1, Direction::plus) == 0);
static_assert(mesh35.neighbor(2, 0, Direction::minus) == 12);
static_assert(mesh35.distance(0, 14) == 2);
static_assert(mesh35.distance(0, 7) == 3);
static_assert(mesh35.diameter() == 3);
static_assert(mesh35.num_links() == 60);
// No even extent: the documented rule cuts the largest dimension (3 rings of 5, each cut
// twice). This is the one-dimension cut of the doc comment, not a balanced bisection.
static_assert(mesh35.bisection_width() == 6);
static_assert(mesh35.next_hop(0, 14) == 4);
static_assert(route_nodes<Mesh<3, 5>, 2>(mesh35, 0, 14) == arr<4, 14>);
static_assert(route_nodes<Mesh<3, 5>, 3>(mesh35, 0, 7) == arr<1, 2, 7>);
static_assert(mesh35.route(0, 7).size() == 3);
static_assert(routes_are_shortest(mesh35));
static_assert(coords_round_trip(mesh35));
static_assert(count_links(mesh35) == mesh35.num_links());
static_assert(max_distance(mesh35) == mesh35.diameter());

// ---------------------------------------------------------------------------------------
// Torus<2,3,4>
// ---------------------------------------------------------------------------------------
constexpr Torus<2, 3, 4> torus234{};
static_assert(torus234.size() == 24);
static_assert(torus234.ndims() == 3);
static_assert(torus234.extent(0) == 2 && torus234.extent(1) == 3 && torus234.extent(2) == 4);
static_assert(torus234.stride(0) == 12 && torus234.stride(1) == 4 && torus234.stride(2) == 1);
static_assert(torus234.route_dim(0) == 2 && torus234.route_dim(1) == 1 && torus234.route_dim(2) == 0);
static_assert(torus234.coords(23) == arr<1, 2, 3>);
static_assert(torus234.coords(17) == arr<1, 1, 1>);
static_assert(torus234.rank_of(arr<1, 0, 2>) == 14);
static_assert(torus234.neighbor(0, 0, Direction::plus) == 12);
static_assert(torus234.neighbor(0, 0, Direction::minus) == 12); // extent 2: both ways meet
static_assert(torus234.neighbor(8, 1, Direction::plus) == 0);
static_assert(torus234.neighbor(3, 2, Direction::plus) == 0);
static_assert(torus234.distance(0, 23) == 3);
static_assert(torus234.distance(0, 14) == 3);
static_assert(torus234.diameter() == 4);
static_assert(torus234.num_links() == 120); // 12*2 + 8*6 + 6*8
static_assert(torus234.bisection_width() == 12);
static_assert(torus234.next_hop(0, 23) == 3);
static_assert(route_nodes<Torus<2, 3, 4>, 3>(torus234, 0, 23) == arr<3, 11, 23>);
static_assert(route_nodes<Torus<2, 3, 4>, 3>(torus234, 0, 14) == arr<1, 2, 14>); // tie: plus
static_assert(torus234.route(0, 23).size() == 3);
static_assert(routes_are_shortest(torus234, 5)); // sources 0, 5, 10, 15, 20
static_assert(coords_round_trip(torus234));
static_assert(count_links(torus234) == torus234.num_links());
static_assert(max_distance(torus234) == torus234.diameter());

// ---------------------------------------------------------------------------------------
// Hypercube<3>
// ---------------------------------------------------------------------------------------
constexpr Hypercube<3> cube3{};
static_assert(cube3.size() == 8);
static_assert(cube3.ndims() == 3);
static_assert(cube3.extent(0) == 2 && cube3.extent(2) == 2);
static_assert(cube3.stride(0) == 1 && cube3.stride(1) == 2 && cube3.stride(2) == 4);
static_assert(cube3.coords(5) == arr<1, 0, 1>);
static_assert(cube3.coords(6) == arr<0, 1, 1>);
static_assert(cube3.rank_of(arr<1, 1, 0>) == 3);
static_assert(cube3.neighbor(5, 1) == 7);
static_assert(cube3.neighbor(5, 2, Direction::minus) == 1);
static_assert(cube3.coord(6, 1) == 1);
static_assert(cube3.distance(0, 7) == 3);
static_assert(cube3.distance(5, 6) == 2);
static_assert(cube3.diameter() == 3);
static_assert(cube3.num_links() == 24); // d 2^d
static_assert(cube3.bisection_width() == 4); // p / 2
static_assert(cube3.next_hop(0, 6) == 2); // E-cube: lowest differing bit first
static_assert(cube3.next_hop(7, 0) == 6);
static_assert(route_nodes<Hypercube<3>, 3>(cube3, 0, 7) == arr<1, 3, 7>);
static_assert(route_nodes<Hypercube<3>, 2>(cube3, 5, 2) == arr<4, 6>);
static_assert(cube3.route(5, 2).size() == 3 && cube3.distance(5, 2) == 3);
static_assert(routes_are_shortest(cube3));
static_assert(coords_round_trip(cube3));
static_assert(count_links(cube3) == cube3.num_links());
static_assert(max_distance(cube3) == cube3.diameter());

// ---------------------------------------------------------------------------------------
// Hypercube<0>: one node, no links.
// ---------------------------------------------------------------------------------------
constexpr Hypercube<0> cube0{};
static_assert(cube0.size() == 1);
static_assert(cube0.ndims() == 0);
static_assert(cube0.coords(0).empty());
static_assert(cube0.distance(0, 0) == 0);
static_assert(cube0.diameter() == 0);
static_assert(cube0.num_links() == 0);
static_assert(cube0.bisection_width() == 0);
static_assert(cube0.next_hop(0, 0) == 0);
static_assert(cube0.route(0, 0).size() == 0);
static_assert(!cube0.is_link(0, 0));
static_assert(routes_are_shortest(cube0));

// Other small corners: a ring of one node and of two nodes.
static_assert(Ring<1>{}.size() == 1 && Ring<1>{}.num_links() == 0 && Ring<1>{}.diameter() == 0 &&
              Ring<1>{}.bisection_width() == 0 && Ring<1>{}.neighbor(0, 0) == 0);
static_assert(Ring<2>{}.num_links() == 2 && Ring<2>{}.bisection_width() == 1 && Ring<2>{}.diameter() == 1 &&
              Ring<2>{}.neighbor(0, 0, Direction::plus) == 1 && Ring<2>{}.neighbor(0, 0, Direction::minus) == 1);

// ---------------------------------------------------------------------------------------
// Concepts and static_size_v.
// ---------------------------------------------------------------------------------------
static_assert(topology<Ring<8>> && product_topology<Ring<8>>);
static_assert(topology<Ring<>> && product_topology<Ring<>>);
static_assert(product_topology<Mesh<4, 4>> && product_topology<Mesh<>> && product_topology<Mesh<4, dyn_extent>>);
static_assert(product_topology<Torus<2, 3, 4>> && product_topology<Torus<dyn_extent, 3, dyn_extent>>);
static_assert(product_topology<Hypercube<3>> && product_topology<Hypercube<>> && product_topology<Hypercube<0>>);
static_assert(!topology<int> && !topology<std::array<size_t, 4>>);

static_assert(static_size_v<Ring<8>> == 8);
static_assert(static_size_v<Ring<7>> == 7);
static_assert(static_size_v<Mesh<4, 4>> == 16);
static_assert(static_size_v<Mesh<3, 5>> == 15);
static_assert(static_size_v<Torus<2, 3, 4>> == 24);
static_assert(static_size_v<Hypercube<3>> == 8);
static_assert(static_size_v<Hypercube<0>> == 1);
static_assert(static_size_v<Hypercube<63>> == size_t{1} << 63);
static_assert(static_size_v<Ring<>> == dynamic_extent);
static_assert(static_size_v<Mesh<4, dyn_extent>> == dynamic_extent);
static_assert(static_size_v<Torus<2, dyn_extent, 4>> == dynamic_extent);
static_assert(static_size_v<Hypercube<>> == dynamic_extent);
static_assert(dynamic_extent == std::dynamic_extent);

// ---------------------------------------------------------------------------------------
// Layout: static extents cost nothing; each run-time extent costs one size_t.
// ---------------------------------------------------------------------------------------
static_assert(std::is_empty_v<Ring<8>>);
static_assert(std::is_empty_v<Ring<7>>);
static_assert(std::is_empty_v<Mesh<4, 4>>);
static_assert(std::is_empty_v<Mesh<3, 5>>);
static_assert(std::is_empty_v<Torus<2, 3, 4>>);
static_assert(std::is_empty_v<Hypercube<3>>);
static_assert(std::is_empty_v<Hypercube<0>>);

static_assert(!std::is_empty_v<Ring<>>);
static_assert(sizeof(Ring<>) == 1 * sizeof(size_t));
static_assert(sizeof(Mesh<>) == 2 * sizeof(size_t));
static_assert(sizeof(Mesh<4, dyn_extent>) == 1 * sizeof(size_t));
static_assert(sizeof(Mesh<dyn_extent, 4>) == 1 * sizeof(size_t));
static_assert(sizeof(Torus<dyn_extent, 3, dyn_extent>) == 2 * sizeof(size_t));
static_assert(sizeof(Torus<dyn_extent, dyn_extent, dyn_extent>) == 3 * sizeof(size_t));
static_assert(sizeof(Torus<2, dyn_extent, 4>) == 1 * sizeof(size_t));
static_assert(sizeof(Hypercube<>) == 1 * sizeof(size_t));
static_assert(Torus<dyn_extent, 3, dyn_extent>::num_dynamic() == 2 && Torus<2, 3, 4>::num_dynamic() == 0);

static_assert(std::is_trivially_copyable_v<Ring<8>> && std::is_trivially_copyable_v<Mesh<>> &&
              std::is_trivially_copyable_v<Hypercube<>>);

// ---------------------------------------------------------------------------------------
// Static stays static (as in CuTe): a topology taken BY VALUE, a function parameter and so
// not a constant, still gives constant expressions when its type is fully static, because
// nothing is read from the object.
// ---------------------------------------------------------------------------------------
template <class T>
constexpr size_t size_by_value(T t)
{
  constexpr auto p = t.size();
  constexpr auto d = t.diameter();
  constexpr auto l = t.num_links();
  constexpr auto b = t.bisection_width();
  constexpr auto h = t.distance(0, p - 1);
  static_assert(d <= p && h <= d && b <= l);
  std::array<int, p> per_rank{}; // the size as an array bound
  return per_rank.size();
}
static_assert(size_by_value(Ring<8>{}) == 8);
static_assert(size_by_value(Ring<7>{}) == 7);
static_assert(size_by_value(Mesh<4, 4>{}) == 16);
static_assert(size_by_value(Mesh<3, 5>{}) == 15);
static_assert(size_by_value(Torus<2, 3, 4>{}) == 24);
static_assert(size_by_value(Hypercube<3>{}) == 8);
static_assert(size_by_value(Hypercube<0>{}) == 1);

template <class T>
constexpr size_t ndims_by_value(T t)
{
  constexpr auto n = t.ndims(); // static for tori whatever the extents; for static hypercubes
  return n;
}
static_assert(ndims_by_value(Torus<2, 3, 4>{}) == 3);
static_assert(ndims_by_value(Hypercube<5>{}) == 5);

/// The by-value proof works through a generic algorithm too: a per-rank table sized by the
/// topology's type alone.
template <class T>
  requires(static_size_v<T> != dynamic_extent)
constexpr std::array<size_t, static_size_v<T>> distances_from_zero(T t)
{
  std::array<size_t, static_size_v<T>> d{};
  for (size_t r = 0; r < d.size(); ++r) d[r] = t.distance(0, r);
  return d;
}
static_assert(distances_from_zero(Ring<7>{}) == arr<0, 1, 2, 3, 3, 2, 1>);
static_assert(distances_from_zero(Hypercube<2>{}) == arr<0, 1, 1, 2>);

// ---------------------------------------------------------------------------------------
// Conversions: static -> dynamic implicit; dynamic -> static explicit (and checked).
// ---------------------------------------------------------------------------------------
static_assert(std::is_convertible_v<Ring<8>, Ring<>>);
static_assert(std::is_convertible_v<Mesh<4, 4>, Mesh<>>);
static_assert(std::is_convertible_v<Mesh<4, 4>, Mesh<4, dyn_extent>>);
static_assert(std::is_convertible_v<Mesh<4, 4>, Mesh<dyn_extent, 4>>);
static_assert(std::is_convertible_v<Mesh<4, dyn_extent>, Mesh<>>);
static_assert(std::is_convertible_v<Torus<2, 3, 4>, Torus<dyn_extent, dyn_extent, dyn_extent>>);
static_assert(std::is_convertible_v<Hypercube<3>, Hypercube<>>);

static_assert(!std::is_convertible_v<Ring<>, Ring<8>>);
static_assert(!std::is_convertible_v<Mesh<>, Mesh<4, 4>>);
static_assert(!std::is_convertible_v<Mesh<4, dyn_extent>, Mesh<4, 4>>);
static_assert(!std::is_convertible_v<Mesh<>, Mesh<4, dyn_extent>>);
static_assert(!std::is_convertible_v<Torus<dyn_extent, dyn_extent, dyn_extent>, Torus<2, 3, 4>>);
static_assert(!std::is_convertible_v<Hypercube<>, Hypercube<3>>);

static_assert(std::is_constructible_v<Ring<8>, Ring<>>);
static_assert(std::is_constructible_v<Mesh<4, 4>, Mesh<>>);
static_assert(std::is_constructible_v<Mesh<4, 4>, Mesh<4, dyn_extent>>);
static_assert(std::is_constructible_v<Torus<2, 3, 4>, Torus<dyn_extent, dyn_extent, dyn_extent>>);
static_assert(std::is_constructible_v<Hypercube<3>, Hypercube<>>);

// Different static extents never convert implicitly (explicitly they fail to compile; see
// tests/compile_fail/static_mismatch.cpp). Different numbers of dimensions never convert.
static_assert(!std::is_convertible_v<Ring<7>, Ring<8>>);
static_assert(!std::is_convertible_v<Hypercube<2>, Hypercube<3>>);
static_assert(!std::is_constructible_v<Mesh<>, Ring<>>);
static_assert(!std::is_constructible_v<Ring<>, Mesh<>>);

// Integers are never implicitly a topology.
static_assert(!std::is_convertible_v<int, Ring<>>);
static_assert(!std::is_convertible_v<int, Hypercube<>>);
static_assert(std::is_constructible_v<Ring<>, int>);
static_assert(std::is_constructible_v<Mesh<>, int, int>);
static_assert(std::is_constructible_v<Mesh<4, dyn_extent>, int>);      // the dynamic extent only
static_assert(std::is_constructible_v<Mesh<4, dyn_extent>, int, int>); // or all of them
static_assert(!std::is_constructible_v<Mesh<4, dyn_extent>, int, int, int>);
static_assert(std::is_default_constructible_v<Ring<8>> && !std::is_default_constructible_v<Ring<>>);
static_assert(std::is_default_constructible_v<Hypercube<3>> && !std::is_default_constructible_v<Hypercube<>>);

// The conversions in constant expressions.
constexpr Ring<> ring8_dynamic = Ring<8>{};
static_assert(ring8_dynamic.size() == 8 && ring8_dynamic == Ring<>{8});
constexpr Ring<8> ring8_back{Ring<>{8}};
static_assert(ring8_back.size() == 8);
constexpr Mesh<4, dyn_extent> mesh_half = Mesh<4, 4>{};
static_assert(mesh_half.extent(1) == 4 && mesh_half.size() == 16);
constexpr Mesh<4, 4> mesh_full{Mesh<>{4, 4}};
static_assert(mesh_full == mesh44);
constexpr Hypercube<> cube3_dynamic = Hypercube<3>{};
static_assert(cube3_dynamic.size() == 8 && cube3_dynamic == Hypercube<>::of_dims(3));
constexpr Hypercube<3> cube3_back{Hypercube<>::of_dims(3)};
static_assert(cube3_back.size() == 8);
static_assert(Hypercube<>::of_size(64).ndims() == 6);
// Named constructors only (issue 11): Hypercube<>{n} would read as n dimensions to some
// and n nodes to others, where Ring<>{n} and Mesh<>{r, c} take node counts.
static_assert(!std::is_constructible_v<Hypercube<>, int> && !std::is_constructible_v<Hypercube<>, std::size_t>);

// Run-time topologies built in constant expressions agree with the static ones.
static_assert(Mesh<>{3, 5}.coords(14) == mesh35.coords(14));
static_assert(Mesh<>{3, 5}.num_links() == mesh35.num_links());
static_assert(Torus<dyn_extent, 3, dyn_extent>{2, 4}.size() == 24 && Torus<dyn_extent, 3, dyn_extent>{2, 4}.extent(2) == 4);
static_assert(Torus<dyn_extent, 3, dyn_extent>{2, 3, 4}.extent(0) == 2);
static_assert(routes_are_shortest(Torus<dyn_extent, dyn_extent, dyn_extent>{2, 3, 4}, 7));
static_assert(route_nodes<Torus<dyn_extent, dyn_extent, dyn_extent>, 3>(Torus<dyn_extent, dyn_extent, dyn_extent>{2, 3, 4}, 0, 23) == arr<3, 11, 23>);
static_assert(Hypercube<>::of_dims(5).num_links() == 5 * 32 && Hypercube<>::of_dims(5).bisection_width() == 16);

// Class template argument deduction from integers gives the fully dynamic torus.
static_assert(std::is_same_v<decltype(Torus{2, 3, 4}), Torus<dyn_extent, dyn_extent, dyn_extent>>);
static_assert(std::is_same_v<decltype(Torus{8}), Ring<>>);

} // namespace

TEST_CASE("topology static tier: static facts equal the run-time facts of the dynamic twin", "[topology][static]")
{
  STATIC_REQUIRE(std::is_empty_v<Ring<8>>);
  STATIC_REQUIRE(size_by_value(Mesh<4, 4>{}) == 16);

  // The same facts, computed at run time from run-time extents.
  const Ring<> r{8};
  CHECK(r.size() == ring8.size());
  CHECK(r.diameter() == ring8.diameter());
  CHECK(r.num_links() == ring8.num_links());
  CHECK(r.bisection_width() == ring8.bisection_width());
  CHECK(r.next_hop(0, 4) == ring8.next_hop(0, 4));

  const Mesh<> m{3, 5};
  CHECK(m.coords(7) == mesh35.coords(7));
  CHECK(m.route(0, 7).size() == mesh35.route(0, 7).size());
  CHECK(m.bisection_width() == mesh35.bisection_width());

  const Hypercube<> h = Hypercube<>::of_dims(3);
  CHECK(h.num_links() == cube3.num_links());
  CHECK(h.coords(5)[0] == 1);
  CHECK(h.coords(5)[1] == 0);
  CHECK(h.coords(5)[2] == 1);
}

TEST_CASE("topology static tier: conversions keep the topology", "[topology][static]")
{
  const Ring<> dynamic = Ring<8>{}; // implicit
  CHECK(dynamic == Ring<>{8});
  const Ring<8> back{dynamic}; // explicit, checked at run time
  CHECK(back.size() == 8);
  const Mesh<4, dyn_extent> half{Mesh<>{4, 6}};
  CHECK(half.extent(1) == 6);
  const Hypercube<4> cube{Hypercube<>::of_dims(4)};
  CHECK(cube.size() == 16);
}

TEST_CASE("topology static tier: of_size builds the topology a number of nodes decides", "[topology][static]")
{
  // At compile time where p is constant.
  static_assert(Ring<>::of_size(6) == Ring<>{6});
  static_assert(Mesh<2, dyn_extent>::of_size(6).extent(1) == 3);
  static_assert(Torus<dyn_extent, 2, 2>::of_size(12).extent(0) == 3);
  static_assert(Mesh<2, 3>::of_size(6).size() == 6);
  static_assert(Hypercube<>::of_size(16).ndims() == 4);
  // At run time, a p the topology cannot have is std::invalid_argument naming it.
  CHECK_THROWS_WITH((Mesh<4, dyn_extent>::of_size(6)),
                    "collectives::Torus::of_size: 6 nodes are not a positive multiple of the static extents' product 4");
  CHECK_THROWS_WITH((Mesh<2, 3>::of_size(5)), "collectives::Torus::of_size: 5 nodes, but the static torus has 6");
  CHECK_THROWS_AS(Ring<>::of_size(0), std::invalid_argument);
  CHECK_THROWS_AS(Hypercube<>::of_size(6), std::invalid_argument);
}
