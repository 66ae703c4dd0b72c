// The reductions, front ends: reduce, allreduce, reduce_scatter, scan and exscan with every
// algorithm against the serial reference, the LEFT FOLD in rank order x0 op x1 op ... op
// x(p-1), for commutative operators (std::plus, std::multiplies, minimum, maximum,
// std::bit_xor, a lambda marked commutative) and non-commutative ones (2x2 integer matrix
// products, string concatenation in a fixed-size array); in place; floating-point
// all-reduce bit-identical on every rank and every run; bad input refused before anything
// is written.

#include <catch2/catch.hpp>

#include "../support/failures.hpp"
#include "../support/harness.hpp"
#include "../support/matrix.hpp"
#include "../support/registry.hpp"
#include "../support/sanitizers.hpp"
#include "../support/sweeps.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace collectives;
using namespace collectives::testing;
using Catch::Matchers::Contains;

namespace {

// ---------------------------------------------------------------------------------------
// Element types and operators.
// ---------------------------------------------------------------------------------------

/// Concatenation in a fixed-size array: the non-zero chars of b appended to those of a.
/// Long enough that two chars from each of 64 ranks never get cut.
constexpr std::size_t text_size = 136;
using Text = std::array<char, text_size>;
const auto append = [](const Text& x, const Text& y) {
  Text out = x;
  std::size_t n = 0;
  while (n < text_size && out[n] != 0) ++n;
  for (std::size_t i = 0; i < text_size && y[i] != 0 && n < text_size; ++i) out[n++] = y[i];
  return out;
};

/// A reduction to test: operator, contributions, and the serial reference.
template <class T_, class Op>
struct Case {
  using T = T_;
  const char* name;
  Op op;
  T (*value)(std::size_t rank, std::size_t index);
  T poison;

  static constexpr bool commutative = is_commutative_v<Op, T>;

  /// Rank r's contribution: n elements.
  std::vector<T> contribution(std::size_t r, std::size_t n, std::size_t first = 0) const
  {
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = value(r, first + i);
    return v;
  }
  /// Elements first..first+n-1 of the left fold x(lo) op ... op x(hi), lo <= hi.
  std::vector<T> fold(std::size_t lo, std::size_t hi, std::size_t first, std::size_t n) const
  {
    std::vector<T> acc = contribution(lo, n, first);
    for (std::size_t r = lo + 1; r <= hi; ++r)
      for (std::size_t i = 0; i < n; ++i) acc[i] = op(acc[i], value(r, first + i));
    return acc;
  }
};

template <class T, class Op>
Case<T, Op> make_case(const char* name, Op op, T (*value)(std::size_t, std::size_t), T poison)
{
  return {name, op, value, poison};
}

auto int_plus()
{
  return make_case<int>("int std::plus<>", std::plus<>{},
                        [](std::size_t r, std::size_t i) { return static_cast<int>((r * 37 + i * 11) % 1000) - 500; },
                        -77777);
}
auto long_multiplies()
{
  return make_case<long long>("long long std::multiplies", std::multiplies<long long>{},
                              [](std::size_t r, std::size_t i) -> long long {
                                const std::size_t k = (r * 7 + i * 3) % 10;
                                return k == 0 ? 2 : k == 1 ? -1 : k == 2 ? -2 : 1;
                              },
                              -99);
}
auto double_minimum()
{
  return make_case<double>("double minimum", minimum{},
                           [](std::size_t r, std::size_t i) { return std::sin(static_cast<double>(r * 31 + i * 17)); }, 9.0);
}
auto char_maximum()
{
  return make_case<char>("char maximum", maximum{}, [](std::size_t r, std::size_t i) { return make_value<char>(r, i); },
                         '\x7f');
}
auto unsigned_xor()
{
  return make_case<unsigned>("unsigned std::bit_xor", std::bit_xor<unsigned>{},
                             [](std::size_t r, std::size_t i) {
                               return static_cast<unsigned>((r + 1) * 2654435761u ^ i * 40503u);
                             },
                             0xdeadbeefu);
}
auto commutative_lambda()
{
  return make_case<long long>("commutative(lambda)",
                              commutative([](const long long& a, const long long& b) { return a + b; }),
                              [](std::size_t r, std::size_t i) { return static_cast<long long>(r * 1000 + i); }, -1);
}
auto matrix_product()
{
  return make_case<Mat>("2x2 matrix product", mat_mul,
                        [](std::size_t r, std::size_t i) {
                          const auto x = static_cast<std::uint32_t>(r), y = static_cast<std::uint32_t>(i);
                          return Mat{1 + (x * 3 + y) % 7, 2 + (x + 2 * y) % 5, (x * 5 + y) % 3, 1 + (x + y) % 4};
                        },
                        Mat{7, 7, 7, 7});
}
auto concatenation()
{
  return make_case<Text>("concatenation", append,
                         [](std::size_t r, std::size_t i) {
                           Text t{};
                           if ((r * 7 + i) % 9 == 4) return t; // an empty contribution now and then
                           t[0] = static_cast<char>('!' + (r * 5 + i) % 94);
                           if ((r + i) % 4 == 0) t[1] = static_cast<char>('!' + (r * 11 + 3 * i) % 94);
                           return t;
                         },
                         [] {
                           Text t{};
                           t.fill('?');
                           return t;
                         }());
}

/// A 2x2 matrix with operator*: std::multiplies<> on it is a matrix product, which the
/// library must not take for commutative (it did, as for the arithmetic types).
struct MatTimes {
  std::uint32_t a, b, c, d;
  friend bool operator==(const MatTimes&, const MatTimes&) = default;
  friend MatTimes operator*(const MatTimes& x, const MatTimes& y)
  {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
};
auto matrix_std_multiplies()
{
  return make_case<MatTimes>("2x2 matrix std::multiplies<>", std::multiplies<>{},
                             [](std::size_t r, std::size_t i) {
                               const auto x = static_cast<std::uint32_t>(r), y = static_cast<std::uint32_t>(i);
                               return MatTimes{1 + (x * 3 + y) % 7, 2 + (x + 2 * y) % 5, (x * 5 + y) % 3, 1 + (x + y) % 4};
                             },
                             MatTimes{7, 7, 7, 7});
}
/// A value and the rank it came from, ordered by the value alone: minimum keeps the left
/// operand on ties, so the left fold keeps the lowest rank of the smallest value.
struct Ranked {
  int value, rank;
  friend bool operator==(const Ranked&, const Ranked&) = default;
  friend bool operator<(const Ranked& x, const Ranked& y) { return x.value < y.value; }
};
auto ranked_minimum()
{
  return make_case<Ranked>("(value, rank) minimum by value", minimum{},
                           [](std::size_t r, std::size_t i) {
                             return Ranked{static_cast<int>((r * 3 + i) % 4), static_cast<int>(r)};
                           },
                           Ranked{-1, -1});
}

// ---------------------------------------------------------------------------------------
// Algorithm lists, read from the registry (algorithms<C>): for each collective the
// algorithms that fit the topology and the operator (a power of two, a product topology, a
// commutative operator: for_each_fitting), then the default.
// Algorithms::defaults runs only each collective's default and the algorithms that need a
// commutative operator: enough to show that an operator's traits reach the algorithms,
// without instantiating every schedule for every operator type.
// ---------------------------------------------------------------------------------------

enum class Algorithms { all, defaults };

/// True for the algorithms that need a commutative operator (never the default).
template <class Alg>
constexpr bool uses_commutativity = [] {
  if constexpr (is_default<Alg>) return false;
  else return Alg::needs.commutative;
}();

/// True when Alg (or the default) runs in place.
template <class Alg>
constexpr bool runs_in_place = [] {
  if constexpr (is_default<Alg>) return true;
  else return !Alg::needs.out_of_place;
}();

/// f(alg) for every algorithm of collective Coll that fits topo with case C's operator
/// (Algorithms::defaults: only those that need commutativity), then f(automatic).
template <Collective Coll, class C, Algorithms A, class Topo, class F>
void for_each_algorithm(const Topo& topo, F f)
{
  for_each_fitting<Coll, C::commutative>(topo, Problem{}, [&](auto alg) {
    if constexpr (A == Algorithms::all || uses_commutativity<decltype(alg)>) f(alg);
  });
  f(automatic);
}

template <class C, Algorithms A, class Topo, class F>
void for_each_reduce(const Topo& topo, F f)
{
  for_each_algorithm<Collective::reduce, C, A>(topo, f);
}

template <class C, Algorithms A, class Topo, class F>
void for_each_allreduce(const Topo& topo, F f)
{
  for_each_algorithm<Collective::allreduce, C, A>(topo, f);
}

template <class C, Algorithms A, class Topo, class F>
void for_each_reduce_scatter(const Topo& topo, F f)
{
  for_each_algorithm<Collective::reduce_scatter, C, A>(topo, f);
}

template <class C, Algorithms A, class Topo, class F>
void for_each_scan(const Topo& topo, F f)
{
  for_each_algorithm<Collective::scan, C, A>(topo, f);
}

// ---------------------------------------------------------------------------------------
// Per-rank checks. Failures are collected on the ranks (Catch2's assertions are not
// thread-safe) and reported by the main thread.
// ---------------------------------------------------------------------------------------

template <class C, class Alg>
std::string describe(const char* call, const C& cs, std::size_t p, std::size_t n, std::size_t rank,
                     const std::string& extra = "")
{
  return std::string(call) + "(" + name_of(Alg{}) + ") " + extra + "with " + cs.name + ": p = " + std::to_string(p) +
         ", n = " + std::to_string(n) + ", wrong on rank " + std::to_string(rank);
}

/// Appends `tail` poison elements, which no collective may write.
template <class T>
std::vector<T> with_tail(std::vector<T> v, std::size_t tail, const T& poison)
{
  v.insert(v.end(), tail, poison);
  return v;
}

/// How much one check does: the p sweep runs each algorithm once, out of place; the other
/// tests add the in-place forms.
enum class Depth { sweep, thorough };

/// reduce of n elements to `root`; the other ranks' receive ranges must stay untouched.
template <class C, class Comm, class Alg>
void check_reduce(Comm& comm, const C& cs, std::size_t n, std::size_t root, Alg alg, Depth depth, Failures& bad)
{
  using T = typename C::T;
  const std::size_t r = comm.rank(), p = comm.size();
  const auto send = cs.contribution(r, n);
  std::vector<T> recv(n + 1, cs.poison);
  call_with(reduce, alg, comm, send, recv, cs.op, root);
  const auto want = r == root ? with_tail(cs.fold(0, p - 1, 0, n), 1, cs.poison) : std::vector<T>(n + 1, cs.poison);
  const std::string to = "to root " + std::to_string(root) + " ";
  if (recv != want) bad.push_back(describe<C, Alg>("reduce", cs, p, n, r, to));
  if constexpr (!runs_in_place<Alg>) return;
  if (depth == Depth::sweep) return;
  // In place: the root's buffer becomes the result, the others' stay their contributions.
  std::vector<T> buf = send;
  call_with(reduce, alg, comm, buf, cs.op, root);
  if (buf != (r == root ? cs.fold(0, p - 1, 0, n) : send))
    bad.push_back(describe<C, Alg>("reduce", cs, p, n, r, "in place " + to));
}

template <class C, class Comm, class Alg>
void check_allreduce(Comm& comm, const C& cs, std::size_t n, Alg alg, Depth depth, Failures& bad)
{
  using T = typename C::T;
  const std::size_t r = comm.rank(), p = comm.size();
  const auto send = cs.contribution(r, n);
  const auto want = cs.fold(0, p - 1, 0, n);
  std::vector<T> recv(n + 1, cs.poison);
  call_with(allreduce, alg, comm, send, recv, cs.op);
  if (recv != with_tail(want, 1, cs.poison)) bad.push_back(describe<C, Alg>("allreduce", cs, p, n, r));
  if constexpr (runs_in_place<Alg>) { // the ring refuses in place
    if (depth == Depth::sweep) return;
    std::vector<T> buf = send;
    call_with(allreduce, alg, comm, buf, cs.op);
    if (buf != want) bad.push_back(describe<C, Alg>("allreduce", cs, p, n, r, "in place "));
  }
}

/// reduce_scatter of blocks of m elements: rank r's contribution is its p*m elements.
template <class C, class Comm, class Alg>
void check_reduce_scatter(Comm& comm, const C& cs, std::size_t m, Alg alg, Depth depth, Failures& bad)
{
  using T = typename C::T;
  const std::size_t r = comm.rank(), p = comm.size();
  const auto send = cs.contribution(r, p * m);
  const auto want = cs.fold(0, p - 1, r * m, m);
  std::vector<T> recv(m + 1, cs.poison);
  call_with(reduce_scatter, alg, comm, send, recv, cs.op);
  if (recv != with_tail(want, 1, cs.poison)) bad.push_back(describe<C, Alg>("reduce_scatter", cs, p, m, r));
  if constexpr (!runs_in_place<Alg>) return;
  if (depth == Depth::sweep) return;
  std::vector<T> buf = send;
  call_with(reduce_scatter, alg, comm, buf, cs.op);
  if (!std::equal(want.begin(), want.end(), buf.begin()))
    bad.push_back(describe<C, Alg>("reduce_scatter", cs, p, m, r, "in place "));
}

/// scan and exscan, out of place and in place; exscan leaves rank 0's output alone.
template <class C, class Comm, class Alg>
void check_scan(Comm& comm, const C& cs, std::size_t n, Alg alg, Depth depth, Failures& bad)
{
  using T = typename C::T;
  const std::size_t r = comm.rank(), p = comm.size();
  const auto send = cs.contribution(r, n);
  const auto inclusive = cs.fold(0, r, 0, n);
  const auto exclusive = r == 0 ? std::vector<T>(n, cs.poison) : cs.fold(0, r - 1, 0, n);
  std::vector<T> recv(n + 1, cs.poison);
  call_with(scan, alg, comm, send, recv, cs.op);
  if (recv != with_tail(inclusive, 1, cs.poison)) bad.push_back(describe<C, Alg>("scan", cs, p, n, r));
  std::vector<T> ex(n + 1, cs.poison);
  call_with(exscan, alg, comm, send, ex, cs.op);
  if (ex != with_tail(exclusive, 1, cs.poison)) bad.push_back(describe<C, Alg>("exscan", cs, p, n, r));
  if constexpr (!runs_in_place<Alg>) return;
  if (depth == Depth::sweep) return;
  std::vector<T> buf = send;
  call_with(scan, alg, comm, buf, cs.op);
  if (buf != inclusive) bad.push_back(describe<C, Alg>("scan", cs, p, n, r, "in place "));
  buf = send;
  call_with(exscan, alg, comm, buf, cs.op);
  if (buf != (r == 0 ? send : exclusive)) bad.push_back(describe<C, Alg>("exscan", cs, p, n, r, "in place "));
}

/// Every reduction with the algorithms A that fit, for case cs and n elements (blocks of n
/// for reduce_scatter). Depth::thorough: every root of roots_of(p), in place too.
/// Depth::sweep: one root (first, middle or last by p), out of place, and for a commutative
/// operator only the algorithms where commutativity matters (reduce's trees and chains are
/// then rooted at the root; ring and dimensional need it).
template <Algorithms A = Algorithms::all, class C, class Topo>
void check_all(const Topo& topo, const C& cs, std::size_t n, Depth depth = Depth::thorough)
{
  const std::size_t p = topo.size();
  const bool sweep = depth == Depth::sweep;
  const bool skip_plain = sweep && C::commutative; // covered by the non-commutative sweep
  report(run_on(topo, [&](auto& comm) {
    Failures bad;
    auto roots = roots_of(p);
    if (sweep) roots = {roots[p % roots.size()]};
    for (std::size_t root : roots)
      for_each_reduce<C, A>(topo, [&](auto alg) { check_reduce(comm, cs, n, root, alg, depth, bad); });
    for_each_allreduce<C, A>(topo, [&](auto alg) {
      if (!skip_plain || uses_commutativity<decltype(alg)>) check_allreduce(comm, cs, n, alg, depth, bad);
    });
    for_each_reduce_scatter<C, A>(topo, [&](auto alg) {
      if (!skip_plain || uses_commutativity<decltype(alg)>) check_reduce_scatter(comm, cs, n, alg, depth, bad);
    });
    if (!skip_plain) for_each_scan<C, A>(topo, [&](auto alg) { check_scan(comm, cs, n, alg, depth, bad); });
    return bad;
  }));
}

} // namespace

// The matrix product (not commutative) runs every algorithm that takes any operator; int
// addition (commutative) the ones that need or exploit commutativity.
COLLECTIVES_SWEEP_TEST_CASES("reductions: every algorithm equals the left fold", "[reductions]", [](std::size_t p) {
  check_all(Ring<>{p}, matrix_product(), 3, Depth::sweep);
  check_all(Ring<>{p}, int_plus(), 3, Depth::sweep);
})

namespace {

/// Sizes 0, 1 and 7 on rings of the given sizes, in place too: the commutative and the
/// non-commutative case through every algorithm, or every other operator through the
/// defaults (and the algorithms that need commutativity).
void check_operators(std::initializer_list<std::size_t> ps, bool every_algorithm)
{
  for (std::size_t p : ps) {
    INFO("p = " << p);
    for (std::size_t n : {0, 1, 7}) {
      INFO("n = " << n);
      if (every_algorithm) {
        check_all(Ring<>{p}, int_plus(), n);
        check_all(Ring<>{p}, matrix_product(), n);
        continue;
      }
      check_all<Algorithms::defaults>(Ring<>{p}, concatenation(), n);
      check_all<Algorithms::defaults>(Ring<>{p}, long_multiplies(), n);
      check_all<Algorithms::defaults>(Ring<>{p}, double_minimum(), n);
      check_all<Algorithms::defaults>(Ring<>{p}, char_maximum(), n);
      check_all<Algorithms::defaults>(Ring<>{p}, unsigned_xor(), n);
      check_all<Algorithms::defaults>(Ring<>{p}, commutative_lambda(), n);
    }
  }
}

} // namespace

// One test in four parts, so that ctest can run them side by side.
TEST_CASE("reductions: sizes 0, 1 and 7, in place too, every algorithm, p = 1..4", "[reductions]")
{
  check_operators({1, 2, 3, 4}, true);
}

TEST_CASE("reductions: sizes 0, 1 and 7, in place too, every algorithm, p = 5..12", "[reductions]")
{
  if (sanitized)
    check_operators({7, 8}, true);
  else
    check_operators({5, 7, 8, 12}, true);
}

TEST_CASE("reductions: every operator, sizes 0, 1 and 7, in place too, p = 1..4", "[reductions]")
{
  check_operators({1, 2, 3, 4}, false);
}

TEST_CASE("reductions: every operator, sizes 0, 1 and 7, in place too, p = 5..12", "[reductions]")
{
  // (Under a sanitizer: p = 5 and 12, and 33 ranks for the concatenation.)
  if (sanitized)
    check_operators({5, 12}, false);
  else
    check_operators({5, 7, 8, 12}, false);
  // Concatenation over many ranks: the rank order is spelled out in the result.
  check_all<Algorithms::defaults>(Ring<>{33}, concatenation(), 2);
  if (!sanitized) check_all<Algorithms::defaults>(Ring<>{64}, concatenation(), 1);
}

TEST_CASE("reductions: std::multiplies<> and minimum on a type of the user's keep the rank order", "[reductions]")
{
  // Known to commute on the arithmetic types only: on a user's type, a + b or a * b may be
  // a concatenation or a matrix product, and equal elements may differ.
  static_assert(is_commutative_v<std::multiplies<>, int> && is_commutative_v<std::plus<>, double>);
  static_assert(is_commutative_v<minimum, double> && is_commutative_v<std::bit_xor<>, unsigned>);
  static_assert(!is_commutative_v<std::multiplies<>, MatTimes> && !is_commutative_v<std::plus<>, Text>);
  static_assert(!is_commutative_v<minimum, Ranked> && !is_commutative_v<maximum, Ranked>);
  static_assert(is_commutative_v<decltype(commutative(std::multiplies<>{})), MatTimes>);
  for (std::size_t p : {3, 5, 8}) {
    INFO("p = " << p);
    for (std::size_t n : {1, 7}) {
      check_all<Algorithms::defaults>(Ring<>{p}, matrix_std_multiplies(), n);
      check_all<Algorithms::defaults>(Ring<>{p}, ranked_minimum(), n);
    }
  }
}

TEST_CASE("reductions: long vectors (4096 elements) take the long-message paths", "[reductions]")
{
  // Above 2 KiB the defaults switch: reduce to reduce-scatter + gather, allreduce to
  // Rabenseifner.
  const std::vector<std::size_t> ps = sanitized ? std::vector<std::size_t>{3, 8} : std::vector<std::size_t>{2, 3, 6, 8};
  for (std::size_t p : ps) {
    INFO("p = " << p);
    check_all(Ring<>{p}, int_plus(), 4096);
    check_all(Ring<>{p}, matrix_product(), 4096);
  }
}

TEST_CASE("reductions: meshes, tori and hypercubes (dimensional algorithms)", "[reductions]")
{
  check_all(Mesh<>{3, 4}, matrix_product(), 5);
  check_all(Mesh<>{4, 3}, matrix_product(), 2);
  check_all(Mesh<>{1, 5}, matrix_product(), 3);
  check_all(Torus{2, 3, 2}, int_plus(), 5);
  check_all(Torus{2, 3, 2}, matrix_product(), 5);
  check_all(Torus{1, 3, 4}, int_plus(), 3); // a 3x4 mesh, as a torus
  check_all(Torus{3, 1, 3}, int_plus(), 3);
  check_all(Torus{2, 2, 4}, matrix_product(), 3);
  check_all(Hypercube<>::of_dims(4), matrix_product(), 5);
  check_all(Hypercube<>::of_dims(0), matrix_product(), 5);
}

TEST_CASE("reductions: static topologies and their dynamic twins", "[reductions]")
{
  SECTION("Ring<5> and Ring<>{5}: the defaults on a static size that is not a power of two")
  {
    check_all<Algorithms::defaults>(Ring<5>{}, matrix_product(), 4);
    check_all(Ring<>{5}, matrix_product(), 4);
  }
  SECTION("Mesh<3,4> and Mesh<>{3,4}")
  {
    check_all(Mesh<3, 4>{}, int_plus(), 4);
    check_all(Mesh<>{3, 4}, matrix_product(), 4);
  }
  SECTION("Hypercube<3> and Hypercube<>::of_dims(3)")
  {
    check_all(Hypercube<3>{}, int_plus(), 4);
    check_all(Hypercube<>::of_dims(3), matrix_product(), 4);
  }
  SECTION("static roots")
  {
    const auto cs = matrix_product();
    const auto got = run_on(Ring<6>{}, [&](auto& comm) {
      const auto send = cs.contribution(comm.rank(), 3);
      std::vector<Mat> a(3, cs.poison), b(3, cs.poison), c(3, cs.poison);
      reduce(comm, send, a, cs.op, root_c<5>);
      reduce(comm, send, b, cs.op, root_c<0>, reduce_algorithm::ring);
      reduce(comm, send, c, cs.op, root_c<3>, reduce_algorithm::reduce_scatter_gather);
      const auto want = cs.fold(0, 5, 0, 3);
      const std::vector<Mat> untouched(3, cs.poison);
      return (a == (comm.rank() == 5 ? want : untouched)) && (b == (comm.rank() == 0 ? want : untouched)) &&
             (c == (comm.rank() == 3 ? want : untouched));
    });
    for (std::size_t r = 0; r < 6; ++r) CHECK(got[r]);
  }
}

TEST_CASE("reduce: ranks other than the root may pass an empty receive range", "[reductions]")
{
  const auto cs = matrix_product();
  for (std::size_t p : {1, 5, 8}) {
    for (std::size_t n : {1, 600}) { // 600 matrices: the default takes reduce-scatter + gather
      INFO("p = " << p << ", n = " << n);
      report(run_on(Ring<>{p}, [&](auto& comm) {
        Failures bad;
        const std::size_t r = comm.rank();
        for (std::size_t root : roots_of(p))
          for_each_reduce<decltype(cs), Algorithms::all>(comm.topology(), [&](auto alg) {
            using Alg = decltype(alg);
            const auto send = cs.contribution(r, n);
            std::vector<Mat> recv(r == root ? n : 0, cs.poison);
            call_with(reduce, alg, comm, send, recv, cs.op, root);
            if (r == root && recv != cs.fold(0, p - 1, 0, n))
              bad.push_back(describe<decltype(cs), Alg>("reduce", cs, p, n, r, "(empty elsewhere) "));
          });
        return bad;
      }));
    }
  }
}

namespace {

/// Rank r's contribution at element i in the mixed in-place tests below, and the sum of
/// ranks 0 .. ranks - 1's.
double mixed_contribution(std::size_t r, std::size_t i) { return static_cast<double>((r + 1) * (i % 13)); }
double mixed_sum(std::size_t ranks, std::size_t i) { return static_cast<double>(ranks * (ranks + 1) / 2 * (i % 13)); }

/// body(comm) (returning its rank's failures) on a ring of each p, under the team's own
/// cost model and under default_cost_model: the picks the mixed in-place tests compare.
template <class Body>
void on_rings_under_both_models(std::initializer_list<std::size_t> ps, Body body)
{
  for (std::size_t p : ps)
    for (bool endpoint_model : {true, false}) {
      INFO("p = " << p << (endpoint_model ? ", the endpoint's model" : ", default_cost_model"));
      report(run_on(Ring<>{p}, [&](auto& comm) {
        if (!endpoint_model) comm.set_cost_model(default_cost_model);
        return body(comm);
      }));
    }
}

} // namespace

TEST_CASE("reduce: in place at the root alone, as with MPI_IN_PLACE, every algorithm and the default",
          "[reductions][in_place]")
{
  // The root calls reduce(comm, buf, op, root), the others reduce(comm, send, recv, op,
  // root). Until the fifty-second session the default's pick read "in place", so the root
  // could pick another algorithm than the others (p = 5, 32768 doubles, root 0: linear
  // against binomial) and the call failed as a mismatch. Sizes where the picks differed
  // then, under the team's own model and under default_cost_model.
  on_rings_under_both_models({2, 3, 5, 6, 7}, [](auto& comm) {
    Failures bad;
    const std::size_t r = comm.rank(), p = comm.size();
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{32768}})
      for (std::size_t root : roots_of(p))
        for_each_reduce<decltype(int_plus()), Algorithms::all>(comm.topology(), [&](auto alg) {
          using Alg = decltype(alg);
          std::vector<double> mine(n), recv(r == root ? n : 0, -1.0);
          for (std::size_t i = 0; i < n; ++i) mine[i] = mixed_contribution(r, i);
          if (r == root) call_with(reduce, alg, comm, mine, std::plus<>{}, root);
          else call_with(reduce, alg, comm, std::span<const double>(mine), recv, std::plus<>{}, root);
          if (r != root) return;
          bool ok = true;
          for (std::size_t i = 0; i < n; ++i) ok = ok && mine[i] == mixed_sum(p, i);
          if (!ok)
            bad.push_back("reduce(" + name_of(Alg{}) + "), n = " + std::to_string(n) + ", root " +
                          std::to_string(root) + ": wrong at the root");
        });
    return bad;
  });
}

TEST_CASE("scan and exscan: some ranks in place, the others not, every algorithm and the default",
          "[reductions][in_place]")
{
  // MPI lets each rank of MPI_Scan and MPI_Exscan pass MPI_IN_PLACE or not. Until the
  // fifty-second session the default's pick read "in place", so the ranks could pick
  // different algorithms (p = 5, 4096 doubles: a deadlock reported in scan (linear)).
  on_rings_under_both_models({2, 3, 5, 6, 8}, [](auto& comm) {
    Failures bad;
    const std::size_t r = comm.rank();
    const bool in_place = r % 2 == 0;
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{4096}})
      for (bool exclusive : {false, true})
        for_each_scan<decltype(int_plus()), Algorithms::all>(comm.topology(), [&](auto alg) {
          using Alg = decltype(alg);
          std::vector<double> mine(n), out(n, -1.0);
          for (std::size_t i = 0; i < n; ++i) mine[i] = mixed_contribution(r, i);
          const std::span<const double> send(mine);
          if (exclusive) {
            if (in_place) call_with(exscan, alg, comm, mine, std::plus<>{});
            else call_with(exscan, alg, comm, send, out, std::plus<>{});
          } else {
            if (in_place) call_with(scan, alg, comm, mine, std::plus<>{});
            else call_with(scan, alg, comm, send, out, std::plus<>{});
          }
          if (exclusive && r == 0) return; // undefined there
          const std::vector<double>& got = in_place ? mine : out;
          bool ok = true;
          for (std::size_t i = 0; i < n; ++i) ok = ok && got[i] == mixed_sum(exclusive ? r : r + 1, i);
          if (!ok)
            bad.push_back(std::string(exclusive ? "exscan(" : "scan(") + name_of(Alg{}) + "), n = " +
                          std::to_string(n) + (in_place ? ", in place" : "") + ": wrong on rank " + std::to_string(r));
        });
    return bad;
  });
}

namespace {

/// The matrix product in MPI's array form only (no binary call): inout[i] = in[i] * inout[i],
/// `in` holding the lower ranks' contributions. Not commutative.
struct MatMulArray {
  void apply(const Mat* in, Mat* inout, std::size_t n) const
  {
    for (std::size_t i = 0; i < n; ++i) inout[i] = mat_mul(in[i], inout[i]);
  }
};
static_assert(array_operator<MatMulArray, Mat> && !std::is_invocable_v<const MatMulArray&, const Mat&, const Mat&>);

/// Integer addition in array form, declared commutative.
struct SumArray {
  void apply(const long long* in, long long* inout, std::size_t n) const
  {
    for (std::size_t i = 0; i < n; ++i) inout[i] = in[i] + inout[i];
  }
};

} // namespace

TEST_CASE("reductions: send and receive the same buffer", "[reductions][alias]")
{
  // Every algorithm that fits (out of place: staging makes the overlap work), the default
  // too, with the non-commutative matrix product and commutative int addition.
  const auto run = [](const auto& cs, const auto& topo, std::size_t n) {
    using C = std::remove_cvref_t<decltype(cs)>;
    using T = typename C::T;
    const std::size_t p = topo.size();
    report(run_on(topo, [&](auto& comm) {
      Failures bad;
      const std::size_t r = comm.rank();
      for (std::size_t root : roots_of(p))
        for_each_reduce<C, Algorithms::all>(topo, [&](auto alg) {
          auto buf = cs.contribution(r, n);
          call_with(reduce, alg, comm, buf, buf, cs.op, root);
          if (buf != (r == root ? cs.fold(0, p - 1, 0, n) : cs.contribution(r, n)))
            bad.push_back(describe<C, decltype(alg)>("reduce", cs, p, n, r, "aliased, root " + std::to_string(root) + " "));
        });
      for_each_allreduce<C, Algorithms::all>(topo, [&](auto alg) {
        auto buf = cs.contribution(r, n);
        call_with(allreduce, alg, comm, buf, buf, cs.op);
        if (buf != cs.fold(0, p - 1, 0, n)) bad.push_back(describe<C, decltype(alg)>("allreduce", cs, p, n, r, "aliased "));
      });
      for_each_reduce_scatter<C, Algorithms::all>(topo, [&](auto alg) {
        auto buf = cs.contribution(r, p * n);
        call_with(reduce_scatter, alg, comm, buf, std::span<T>(buf).first(n), cs.op);
        const auto want = cs.fold(0, p - 1, r * n, n);
        if (!std::equal(want.begin(), want.end(), buf.begin()))
          bad.push_back(describe<C, decltype(alg)>("reduce_scatter", cs, p, n, r, "aliased "));
        // The receive range as block r of the send range.
        auto at_r = cs.contribution(r, p * n);
        call_with(reduce_scatter, alg, comm, at_r, std::span<T>(at_r).subspan(r * n, n), cs.op);
        if (!std::equal(want.begin(), want.end(), at_r.begin() + static_cast<std::ptrdiff_t>(r * n)))
          bad.push_back(describe<C, decltype(alg)>("reduce_scatter", cs, p, n, r, "aliased at block r "));
      });
      for_each_scan<C, Algorithms::all>(topo, [&](auto alg) {
        auto buf = cs.contribution(r, n);
        call_with(scan, alg, comm, buf, buf, cs.op);
        if (buf != cs.fold(0, r, 0, n)) bad.push_back(describe<C, decltype(alg)>("scan", cs, p, n, r, "aliased "));
        buf = cs.contribution(r, n);
        call_with(exscan, alg, comm, buf, buf, cs.op);
        if (buf != (r == 0 ? cs.contribution(0, n) : cs.fold(0, r - 1, 0, n)))
          bad.push_back(describe<C, decltype(alg)>("exscan", cs, p, n, r, "aliased "));
      });
      return bad;
    }));
  };
  for (std::size_t p : {1, 2, 3, 4, 6, 8}) {
    INFO("p = " << p);
    const auto [rows, cols] = mesh_shape(p);
    for (std::size_t n : {1, 7, 600}) {
      INFO("n = " << n);
      run(matrix_product(), Mesh<>{rows, cols}, n);
      run(int_plus(), Mesh<>{rows, cols}, n);
    }
  }
}

TEST_CASE("reductions: reduce and reduce_scatter in place, every algorithm that runs in place", "[reductions][in_place]")
{
  // for_each_fitting with InPlace: the algorithms the in-place call may name.
  const auto cs = matrix_product();
  using C = decltype(cs);
  std::size_t ran = 0;
  for (std::size_t p : {1, 2, 3, 4, 5, 8, 9}) {
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> topo{rows, cols};
    for (std::size_t n : {1, 5, 600}) {
      INFO("p = " << p << ", n = " << n);
      report(run_on(topo, [&](auto& comm) {
        Failures bad;
        const std::size_t r = comm.rank();
        for (std::size_t root : roots_of(p))
          for_each_fitting_and_default<Collective::reduce, false, true>(topo, Problem{}, [&](auto alg) {
            auto buf = cs.contribution(r, n);
            call_with(reduce, alg, comm, buf, cs.op, root);
            if (buf != (r == root ? cs.fold(0, p - 1, 0, n) : cs.contribution(r, n)))
              bad.push_back(describe<C, decltype(alg)>("reduce", cs, p, n, r, "in place, root " + std::to_string(root) + " "));
          });
        for_each_fitting_and_default<Collective::reduce_scatter, false, true>(topo, Problem{}, [&](auto alg) {
          auto buf = cs.contribution(r, p * n);
          call_with(reduce_scatter, alg, comm, buf, cs.op);
          const auto want = cs.fold(0, p - 1, r * n, n);
          if (!std::equal(want.begin(), want.end(), buf.begin()))
            bad.push_back(describe<C, decltype(alg)>("reduce_scatter", cs, p, n, r, "in place "));
        });
        return bad;
      }));
    }
    for_each_fitting<Collective::reduce, false, true>(topo, Problem{}, [&](auto) { ++ran; });
  }
  CHECK(ran > 7);
}

TEST_CASE("reductions: in place, reduce, reduce_scatter, allreduce and scan copy no contribution", "[reductions][in_place]")
{
  // Issue 12: in place, every algorithm runs on the caller's buffer itself
  // (input_may_alias_output, or an in-place schedule), so the communicator holds no copy of
  // a contribution (ExecContext::contribution_bytes); out of place with overlapping
  // buffers, the twin, it does.
  std::size_t ran = 0;
  for (std::size_t p : {2, 3, 4, 5, 8}) {
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> topo{rows, cols};
    for (std::size_t n : {1, 40000}) { // 40000 doubles: the long-message algorithms' range
      INFO("p = " << p << ", n = " << n);
      report(run_on(topo, [&](auto& comm) {
        Failures bad;
        const std::size_t r = comm.rank();
        std::vector<double> buf(p * n + 1, 1.0);
        const auto copied = [&](const std::string& what, auto call) {
          auto c = comm; // a copy starts with nothing held
          call(c);
          if (c.context().contribution_bytes() != 0)
            bad.push_back(what + " in place copied its contribution at rank " + std::to_string(r));
        };
        for (std::size_t root : {std::size_t{0}, p - 1})
          for_each_fitting_and_default<Collective::reduce, true, true>(topo, Problem{}, [&](auto alg) {
            if constexpr (!is_default<decltype(alg)>) static_assert(decltype(alg)::input_may_alias_output);
            copied("reduce (" + name_of(alg) + ")", [&](auto& c) {
              call_with(reduce, alg, c, std::span<double>(buf).first(n), std::plus<>{}, root);
            });
          });
        for_each_fitting_and_default<Collective::reduce_scatter, true, true>(topo, Problem{}, [&](auto alg) {
          if constexpr (!is_default<decltype(alg)>) static_assert(decltype(alg)::input_may_alias_output);
          copied("reduce_scatter (" + name_of(alg) + ")", [&](auto& c) {
            call_with(reduce_scatter, alg, c, std::span<double>(buf).first(p * n), std::plus<>{});
          });
        });
        for_each_fitting_and_default<Collective::allreduce, true, true>(topo, Problem{}, [&](auto alg) {
          copied("allreduce (" + name_of(alg) + ")", [&](auto& c) {
            call_with(allreduce, alg, c, std::span<double>(buf).first(n), std::plus<>{});
          });
        });
        for_each_fitting_and_default<Collective::scan, true, true>(topo, Problem{}, [&](auto alg) {
          if constexpr (!is_default<decltype(alg)>) static_assert(decltype(alg)::input_may_alias_output);
          copied("scan (" + name_of(alg) + ")", [&](auto& c) {
            call_with(scan, alg, c, std::span<double>(buf).first(n), std::plus<>{});
            call_with(exscan, alg, c, std::span<double>(buf).first(n), std::plus<>{});
          });
        });
        // The twin: overlapping (n > 1), not the same start: the input is copied first.
        if (n > 1) {
          auto c = comm;
          allreduce(c, std::span<const double>(buf).subspan(1, n), std::span<double>(buf).first(n), std::plus<>{});
          if (c.context().contribution_bytes() == 0) bad.push_back("an overlapping allreduce copied nothing");
        }
        return bad;
      }));
    }
    for_each_fitting<Collective::reduce, true, true>(topo, Problem{}, [&](auto) { ++ran; });
  }
  CHECK(ran > 20);
}

TEST_CASE("allreduce: an element type that is not default-constructible, with a custom operator", "[reductions][nodefault]")
{
  const NoDefaultSum op;
  for (std::size_t p : {1, 2, 3, 4, 7, 8}) {
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> topo{rows, cols};
    for (std::size_t n : {1, 9, 700}) {
      INFO("p = " << p << ", n = " << n);
      std::vector<NoDefault> want = no_default_values(0, n);
      for (std::size_t r = 1; r < p; ++r) {
        const auto x = no_default_values(r, n);
        for (std::size_t i = 0; i < n; ++i) want[i] = op(want[i], x[i]);
      }
      const auto run = [&](auto op_used) {
        report(run_on(topo, [&](auto& comm) {
          Failures bad;
          for_each_fitting_and_default<Collective::allreduce, is_commutative_v<decltype(op_used), NoDefault>>(
            topo, Problem{}, [&](auto alg) {
              const auto send = no_default_values(comm.rank(), n);
              std::vector<NoDefault> recv(n, NoDefault{-1, -1.0});
              call_with(allreduce, alg, comm, send, recv, op_used);
              if (recv != want) bad.push_back("allreduce(" + name_of(alg) + ") of NoDefault, rank " + std::to_string(comm.rank()));
            });
          return bad;
        }));
      };
      run(op);              // not known commutative: the algorithms that keep rank order
      run(commutative(op)); // and those that need commutativity
    }
  }
}

TEST_CASE("reductions: an array operator (apply(in, inout, n)) with allreduce and reduce", "[reductions][array_op]")
{
  const auto cs = matrix_product(); // its values and fold, with the binary form, as the reference
  for (std::size_t p : {1, 2, 3, 4, 5, 8, 12}) {
    const auto [rows, cols] = mesh_shape(p);
    const Mesh<> topo{rows, cols};
    for (std::size_t n : {0, 1, 7, 600}) {
      INFO("p = " << p << ", n = " << n);
      const auto want = cs.fold(0, p - 1, 0, n);
      std::vector<long long> sum(n, 0);
      for (std::size_t r = 0; r < p; ++r)
        for (std::size_t i = 0; i < n; ++i) sum[i] += static_cast<long long>(r * 1000 + i);
      report(run_on(topo, [&](auto& comm) {
        Failures bad;
        const std::size_t r = comm.rank();
        const auto send = cs.contribution(r, n);
        for_each_fitting_and_default<Collective::allreduce, false>(topo, Problem{}, [&](auto alg) {
          std::vector<Mat> recv(n, cs.poison);
          call_with(allreduce, alg, comm, send, recv, MatMulArray{});
          if (recv != want) bad.push_back("allreduce(" + name_of(alg) + ") with an array operator, rank " + std::to_string(r));
        });
        for (std::size_t root : roots_of(p))
          for_each_fitting_and_default<Collective::reduce, false>(topo, Problem{}, [&](auto alg) {
            std::vector<Mat> recv(n, cs.poison);
            call_with(reduce, alg, comm, send, recv, MatMulArray{}, root);
            if (recv != (r == root ? want : std::vector<Mat>(n, cs.poison)))
              bad.push_back("reduce(" + name_of(alg) + ") with an array operator, root " + std::to_string(root) +
                            ", rank " + std::to_string(r));
          });
        // Declared commutative: every algorithm, those that reorder too.
        std::vector<long long> mine(n);
        for (std::size_t i = 0; i < n; ++i) mine[i] = static_cast<long long>(r * 1000 + i);
        for_each_fitting_and_default<Collective::allreduce>(topo, Problem{}, [&](auto alg) {
          std::vector<long long> recv(n, -1);
          call_with(allreduce, alg, comm, mine, recv, commutative(SumArray{}));
          if (recv != sum) bad.push_back("allreduce(" + name_of(alg) + ") with commutative(array operator), rank " + std::to_string(r));
        });
        for_each_fitting_and_default<Collective::reduce>(topo, Problem{}, [&](auto alg) {
          std::vector<long long> recv(n, -1);
          call_with(reduce, alg, comm, mine, recv, commutative(SumArray{}), p - 1);
          if (recv != (r == p - 1 ? sum : std::vector<long long>(n, -1)))
            bad.push_back("reduce(" + name_of(alg) + ") with commutative(array operator), rank " + std::to_string(r));
        });
        return bad;
      }));
    }
  }
}

TEST_CASE("allreduce: the default on static Ring<5>, Mesh<2,3> and Mesh<3,3>", "[reductions][default]")
{
  const auto check = [](auto topo) {
    const std::size_t p = topo.size();
    INFO("p = " << p);
    const auto mat = matrix_product();
    const auto add = int_plus();
    report(run_on(topo, [&](auto& comm) {
      Failures bad;
      for (std::size_t n : {1, 7, 4096}) {
        std::vector<Mat> recv(n, mat.poison);
        allreduce(comm, mat.contribution(comm.rank(), n), recv, mat.op);
        if (recv != mat.fold(0, p - 1, 0, n)) bad.push_back("allreduce() of matrices, n = " + std::to_string(n));
        std::vector<int> sum(n, add.poison);
        allreduce(comm, add.contribution(comm.rank(), n), sum, add.op);
        if (sum != add.fold(0, p - 1, 0, n)) bad.push_back("allreduce() of int, n = " + std::to_string(n));
        auto buf = add.contribution(comm.rank(), n);
        allreduce(comm, buf, add.op);
        if (buf != add.fold(0, p - 1, 0, n)) bad.push_back("allreduce() of int in place, n = " + std::to_string(n));
      }
      return bad;
    }));
  };
  check(Ring<5>{});
  check(Mesh<2, 3>{});
  check(Mesh<3, 3>{});
}

namespace {

/// Values whose sums round differently in every order.
double fp_value(std::size_t r, std::size_t i)
{
  return (1.0 + 1e-3 * static_cast<double>(i)) / static_cast<double>(3 + r * 7 + i % 13) *
         (r % 2 == 0 ? 1.0 : -0.999999);
}

/// Runs every allreduce algorithm on fp_value data with op and returns, per rank, the
/// results of all algorithms back to back (out of place, then in place where allowed).
template <class Op>
std::vector<std::vector<double>> fp_allreduce(std::size_t p, std::size_t n, Op op)
{
  using C = Case<double, Op>;
  return run_on(Ring<>{p}, [&](auto& comm) {
    std::vector<double> all;
    std::vector<double> send(n);
    for (std::size_t i = 0; i < n; ++i) send[i] = fp_value(comm.rank(), i);
    for_each_allreduce<C, Algorithms::all>(comm.topology(), [&](auto alg) {
      std::vector<double> recv(n);
      call_with(allreduce, alg, comm, send, recv, op);
      all.insert(all.end(), recv.begin(), recv.end());
      if constexpr (runs_in_place<decltype(alg)>) {
        std::vector<double> buf = send;
        call_with(allreduce, alg, comm, buf, op);
        all.insert(all.end(), buf.begin(), buf.end());
      }
    });
    return all;
  });
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b)
{
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

} // namespace

namespace {

/// Every allreduce algorithm, twice, on rings of the given sizes: the same bits on every
/// rank and run, for a commutative and a non-commutative operator.
void check_bit_identical(std::initializer_list<std::size_t> ps)
{
  // A non-commutative, non-associative operator too: whatever tree an algorithm uses, every
  // rank must end with the same bits.
  const auto skewed = [](const double& a, const double& b) { return a * 0.75 + b; };
  for (std::size_t p : ps) {
    for (std::size_t n : {1, 7, 1000}) {
      INFO("p = " << p << ", n = " << n);
      const auto first = fp_allreduce(p, n, std::plus<double>{});
      const auto second = fp_allreduce(p, n, std::plus<double>{});
      for (std::size_t r = 0; r < p; ++r) {
        INFO("rank " << r);
        CHECK(same_bits(first[r], first[0]));
        CHECK(same_bits(second[r], first[r]));
      }
      // And it is the sum (to rounding).
      for (std::size_t i = 0; i < n; ++i) {
        double sum = 0;
        for (std::size_t r = 0; r < p; ++r) sum += fp_value(r, i);
        CHECK(first[0][i] == Approx(sum).epsilon(1e-12).margin(1e-15));
      }
      const auto a = fp_allreduce(p, n, skewed);
      const auto b = fp_allreduce(p, n, skewed);
      for (std::size_t r = 0; r < p; ++r) {
        INFO("rank " << r << " (non-commutative operator)");
        CHECK(same_bits(a[r], a[0]));
        CHECK(same_bits(b[r], a[r]));
      }
    }
  }
}

} // namespace

TEST_CASE("allreduce: floating point is bit-identical on every rank and every run, p = 2..7", "[reductions][allreduce]")
{
  check_bit_identical({2, 3, 5, 6, 7});
}

TEST_CASE("allreduce: floating point is bit-identical on every rank and every run, p = 8..16", "[reductions][allreduce]")
{
  if (sanitized)
    check_bit_identical({8, 13});
  else
    check_bit_identical({8, 12, 13, 16});
}

namespace {

/// Per-rank outcome of a call that every rank must refuse.
struct Refusal {
  std::string what;
  bool untouched = false;
};

/// Every rank calls call(comm, send, recv) with send of ns and recv of nr elements; each
/// must throw std::invalid_argument whose message contains `words`, leaving both alone.
template <class Topo, class Call>
void check_refused(const Topo& topo, std::size_t ns, std::size_t nr, const std::string& words, Call call)
{
  const auto got = run_on(topo, [&](auto& comm) {
    Refusal o;
    std::vector<int> send(ns), recv(nr, -5);
    for (std::size_t i = 0; i < ns; ++i) send[i] = static_cast<int>(comm.rank() * 100 + i);
    const auto send0 = send, recv0 = recv;
    try {
      call(comm, send, recv);
      o.what = "nothing thrown";
    } catch (const std::invalid_argument& e) {
      o.what = e.what();
    }
    o.untouched = send == send0 && recv == recv0;
    return o;
  });
  for (std::size_t r = 0; r < got.size(); ++r) {
    INFO("rank " << r);
    CHECK_THAT(got[r].what, Contains(words));
    CHECK(got[r].untouched);
  }
}

} // namespace

TEST_CASE("reductions: bad input throws std::invalid_argument and writes nothing", "[reductions]")
{
  const std::plus<int> plus;
  const auto noncommutative = [](const int& a, const int& b) { return a - b; };
  const Ring<> ring{4};
  SECTION("allreduce: receive range too small")
  {
    check_refused(ring, 5, 4, "collectives::allreduce: the receive range has 4 elements, needs 5",
                  [&](auto& comm, auto& s, auto& r) { allreduce(comm, s, r, plus); });
    check_refused(ring, 5, 4, "collectives::allreduce: the receive range has 4 elements, needs 5",
                  [&](auto& comm, auto& s, auto& r) {
                    allreduce(comm, s, r, noncommutative, allreduce_algorithm::rabenseifner);
                  });
  }
  SECTION("allreduce(ring) in place does not compile")
  {
    // The ring needs separate buffers (needs.out_of_place): the in-place call is
    // constrained away; the out-of-place one and other algorithms in place are not.
    using Comm = Communicator<threads::Endpoint, Ring<>>;
    using V = std::vector<int>;
    STATIC_REQUIRE_FALSE(std::invocable<const allreduce_fn&, Comm&, V&, std::plus<int>, allreduce_algorithm::Ring>);
    STATIC_REQUIRE(std::invocable<const allreduce_fn&, Comm&, const V&, V&, std::plus<int>, allreduce_algorithm::Ring>);
    STATIC_REQUIRE(
      std::invocable<const allreduce_fn&, Comm&, V&, std::plus<int>, allreduce_algorithm::RecursiveDoubling>);
    STATIC_REQUIRE_FALSE(in_place_if_supported<allreduce_algorithm::Ring, true>);
  }
  SECTION("reduce_scatter: sizes")
  {
    check_refused(ring, 10, 3, "collectives::reduce_scatter: the send range has 10 elements, not a multiple of p = 4",
                  [&](auto& comm, auto& s, auto& r) { reduce_scatter(comm, s, r, plus); });
    check_refused(ring, 12, 2, "collectives::reduce_scatter: the receive range has 2 elements, needs 3",
                  [&](auto& comm, auto& s, auto& r) {
                    reduce_scatter(comm, s, r, noncommutative, reduce_scatter_algorithm::pairwise);
                  });
    check_refused(ring, 12, 10,
                  "collectives::reduce_scatter (in place): the send range has 10 elements, not a multiple of p = 4",
                  [&](auto& comm, auto&, auto& r) { reduce_scatter(comm, r, plus); }); // in place
  }
  SECTION("reduce_scatter(recursive_halving) and scan(hypercube) on p = 6")
  {
    check_refused(Ring<>{6}, 12, 2,
                  "collectives::reduce_scatter(recursive_halving): needs a power-of-two number of ranks",
                  [&](auto& comm, auto& s, auto& r) {
                    reduce_scatter(comm, s, r, plus, reduce_scatter_algorithm::recursive_halving);
                  });
    check_refused(Ring<>{6}, 3, 3, "collectives::scan(hypercube): needs a power-of-two number of ranks",
                  [&](auto& comm, auto& s, auto& r) { scan(comm, s, r, plus, scan_algorithm::hypercube); });
    check_refused(Ring<>{6}, 3, 3, "collectives::reduce(hypercube): needs a power-of-two number of ranks",
                  [&](auto& comm, auto& s, auto& r) { reduce(comm, s, r, plus, 0, reduce_algorithm::hypercube); });
  }
  SECTION("scan and exscan: receive range too small")
  {
    check_refused(ring, 3, 2, "collectives::scan: the receive range has 2 elements, needs 3",
                  [&](auto& comm, auto& s, auto& r) { scan(comm, s, r, plus); });
    check_refused(ring, 3, 2, "collectives::exscan: the receive range has 2 elements, needs 3",
                  [&](auto& comm, auto& s, auto& r) { exscan(comm, s, r, noncommutative, scan_algorithm::ring); });
  }
  SECTION("reduce: a bad root")
  {
    check_refused(ring, 3, 3, "collectives::reduce: root 4 is not a rank of a communicator of 4",
                  [&](auto& comm, auto& s, auto& r) { reduce(comm, s, r, plus, 4); });
    check_refused(ring, 3, 3, "collectives::reduce: the root is negative",
                  [&](auto& comm, auto&, auto& r) { reduce(comm, r, plus, -1); }); // in place
  }
}

TEST_CASE("reduce: a root's receive range too small throws before anything is written", "[reductions]")
{
  // Only the root can tell; the team releases the others and Team::run rethrows.
  constexpr std::size_t p = 4, n = 5, root = 1;
  std::vector<std::vector<int>> send(p, std::vector<int>(n, 3)), recv(p);
  for (std::size_t r = 0; r < p; ++r) recv[r].assign(r == root ? n - 1 : n, -5);
  const auto recv0 = recv;
  threads::Team team{p};
  CHECK_THROWS_MATCHES(team.run([&](threads::Endpoint& ep) {
    Communicator<threads::Endpoint, Ring<>> comm{ep, Ring<>{p}};
    reduce(comm, send[ep.rank()], recv[ep.rank()], std::plus<int>{}, root);
  }),
                       std::invalid_argument,
                       Catch::Matchers::Message("collectives::reduce: the root's receive range has 4 elements, needs 5"));
  CHECK(recv[root] == recv0[root]);
}
