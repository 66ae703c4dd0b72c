// A differential fuzzer of the collectives (a plain program; see docs/fuzzing.md):
//
//   collectives_fuzz [--seed N] [--cases K] [--only C] [--verbose]
//
// Each case draws a topology (Ring<>, Mesh<>, Hypercube<> of 1..9 nodes, or the static
// Ring<5>, Mesh<2,3>, Hypercube<2>), a collective, one of its algorithms that fits (or the
// default), an element count (mostly small, rarely up to 100000), an element type (int,
// double, or a 24-byte trivially copyable struct without a default constructor for the
// copying collectives), an operator (+, max, or the non-commutative composition of affine
// maps mod 2^32, the latter only with algorithms that accept it), roots and shifts, in
// place / aliased buffers where allowed, threads-transport options and FaultyEndpoint
// disturbances (delays, permuted requests, cut pieces); runs it on a threads team and
// compares every rank's output with a serial reference. Every output buffer has guard
// elements before and after the region the call may write (and alltoallv's receive
// buffer gaps between its blocks), checked untouched.
//
// A mismatch (or an exception) prints the seed, the case number, the case and a command
// that reruns that case alone, and exits 1. The last line counts the cases per collective.
//
// Instantiations are budgeted (this is one TU of the test suite): every choice is made at
// run time and dispatched through switches, over a fixed table of (topology type, element
// type, operator) combinations; spans everywhere, so each front end is instantiated once
// per combination.

#include "../support/registry.hpp"

#include <collectives/collectives.hpp>
#include <collectives/transport/faulty.hpp>
#include <collectives/transport/threads.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

using namespace collectives;

namespace {

// ---------------------------------------------------------------------------------------
// Element types and operators

/// 24 bytes, trivially copyable, no default constructor: the library must never need one.
struct Blob24 {
  std::uint64_t a, b, c;
  explicit Blob24(std::uint64_t h) : a(h), b((h << 17 | h >> 47) ^ 0x0123456789abcdefull), c(~h) {}
  friend bool operator==(const Blob24&, const Blob24&) = default;
};
static_assert(sizeof(Blob24) == 24 && std::is_trivially_copyable_v<Blob24> && !std::is_default_constructible_v<Blob24>);

/// The affine map t -> a t + b (mod 2^32).
struct Affine {
  std::uint32_t a = 1, b = 0;
  friend bool operator==(const Affine&, const Affine&) = default;
};
/// (f o g)(t) = f(g(t)): associative, not commutative.
struct Compose {
  Affine operator()(const Affine& f, const Affine& g) const { return Affine{f.a * g.a, f.a * g.b + f.b}; }
};

std::uint64_t mix(std::uint64_t z)
{
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The element of type T a hash stands for. Numbers stay within +-10^6, so sums of up to
/// 9 contributions are exact (doubles) and never overflow (ints).
template <class T>
T make(std::uint64_t h)
{
  h = mix(h);
  if constexpr (std::is_same_v<T, int>) return static_cast<int>(h % 2000001) - 1000000;
  else if constexpr (std::is_same_v<T, double>) return static_cast<double>(static_cast<std::int64_t>(h % 2000001) - 1000000);
  else if constexpr (std::is_same_v<T, Affine>) return Affine{static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(h >> 32)};
  else return T(h);
}

std::string show(int v) { return std::to_string(v); }
std::string show(double v) { return std::to_string(v); }
std::string show(const Affine& v) { return "(" + std::to_string(v.a) + "," + std::to_string(v.b) + ")"; }
std::string show(const Blob24& v)
{
  return "{" + std::to_string(v.a) + "," + std::to_string(v.b) + "," + std::to_string(v.c) + "}";
}

// ---------------------------------------------------------------------------------------
// Cases

enum class Topo : int { ring, mesh, hypercube, ring5, mesh23, hypercube2 };
const char* const topo_names[] = {"Ring<>", "Mesh<>", "Hypercube<>", "Ring<5>", "Mesh<2,3>", "Hypercube<2>"};

/// Element type and operator: the first three for the copying collectives, the others
/// for the reductions.
enum class Kind : int { int_copy, double_copy, blob_copy, int_plus, int_max, double_plus, affine };
const char* const kind_names[] = {"int", "double", "Blob24", "int +", "int max", "double +", "Affine compose"};

/// What the fuzzer runs: the collectives, exscan apart from scan.
enum class Call : int {
  broadcast, reduce, allgather, reduce_scatter, allreduce, scan, exscan, scatter, gather, alltoall, alltoallv, shift,
  barrier
};
constexpr int call_count = 13;
const char* const call_names[] = {"broadcast", "reduce",  "allgather", "reduce_scatter", "allreduce",
                                  "scan",      "exscan",  "scatter",   "gather",         "alltoall",
                                  "alltoallv", "shift",   "barrier"};

constexpr bool is_reduction(Call c)
{
  return c == Call::reduce || c == Call::reduce_scatter || c == Call::allreduce || c == Call::scan || c == Call::exscan;
}

/// The (topology type, kind) table: what is instantiated (the compile-time budget). Each
/// dynamic topology gets two copy kinds or one and two reduction kinds, the affine
/// (non-commutative) one always; static ones int and int +. In-place overloads only on
/// the dynamic ones.
constexpr bool allowed(Topo t, Kind k)
{
  switch (t) {
  case Topo::ring: return k == Kind::int_copy || k == Kind::blob_copy || k == Kind::int_plus || k == Kind::affine;
  case Topo::mesh: return k == Kind::blob_copy || k == Kind::int_max || k == Kind::affine;
  case Topo::hypercube: return k == Kind::double_copy || k == Kind::double_plus || k == Kind::affine;
  default: return k == Kind::int_copy || k == Kind::int_plus;
  }
}
constexpr bool dynamic_topology(Topo t) { return t == Topo::ring || t == Topo::mesh || t == Topo::hypercube; }

/// The Topo of a topology type.
template <class TopoT>
constexpr Topo topo_of()
{
  if constexpr (std::is_same_v<TopoT, Ring<>>) return Topo::ring;
  else if constexpr (std::is_same_v<TopoT, Mesh<>>) return Topo::mesh;
  else if constexpr (std::is_same_v<TopoT, Hypercube<>>) return Topo::hypercube;
  else if constexpr (std::is_same_v<TopoT, Ring<5>>) return Topo::ring5;
  else if constexpr (std::is_same_v<TopoT, Mesh<2, 3>>) return Topo::mesh23;
  else return Topo::hypercube2;
}
template <class TopoT>
inline constexpr bool dynamic_topology_v = dynamic_topology(topo_of<TopoT>());

/// How the buffers of a call are laid out.
enum class Place : int { separate, aliased, in_place };
const char* const place_names[] = {"separate buffers", "aliased buffers", "in-place overload"};

struct Case {
  std::uint64_t seed = 0;     ///< the data's and the faults' seed
  Topo topo = Topo::ring;
  std::size_t rows = 1, cols = 1, dims = 0; ///< Mesh<> shape, Hypercube<> dimensions
  std::size_t p = 1;
  Call call = Call::barrier;
  Kind kind = Kind::int_copy;
  std::size_t n = 0;       ///< elements (vector collectives) or per block (block collectives)
  std::size_t root = 0;
  std::ptrdiff_t q = 0;    ///< shift
  Place place = Place::separate;
  bool packed = false;     ///< alltoallv: the overload without displacements
  std::uint64_t pick = 0;    ///< chooses the algorithm (modulo the fitting ones and the default)
  std::size_t algorithm = 0; ///< index among the fitting algorithms; == their count: default
  std::string algorithm_name;
  threads::Options options;
  Faults faults;

  std::string describe() const
  {
    std::string s = std::string(call_names[static_cast<int>(call)]) + " (" + algorithm_name + ") on " +
                    topo_names[static_cast<int>(topo)];
    if (topo == Topo::mesh) s += " " + std::to_string(rows) + "x" + std::to_string(cols);
    if (topo == Topo::hypercube) s += " of " + std::to_string(dims) + " dims";
    s += ", p = " + std::to_string(p) + ", " + kind_names[static_cast<int>(kind)] + ", n = " + std::to_string(n) +
         ", root " + std::to_string(root) + ", q = " + std::to_string(q) + ", " + place_names[static_cast<int>(place)] +
         (call == Call::alltoallv ? (packed ? ", packed" : ", displacements with gaps") : "") +
         ", eager " + std::to_string(options.eager_bytes) + ", channel " + std::to_string(options.channel_bytes) +
         ", share " + std::to_string(options.share_chunk) +
         ", faults {seed " + std::to_string(faults.seed) + ", delay " + std::to_string(faults.max_delay_us) +
         " us, permute " + std::to_string(faults.permute) + ", split " + std::to_string(faults.split) +
         (faults.fail_rank != Faults::no_rank
            ? ", rank " + std::to_string(faults.fail_rank) + " fails at exchange " + std::to_string(faults.fail_step)
            : std::string()) +
         "}";
    return s;
  }
};

/// A failed case: what went wrong, on which rank.
struct Failure {
  bool failed = false;
  std::string what;
  void set(std::string w)
  {
    if (!failed) what = std::move(w);
    failed = true;
  }
};

// ---------------------------------------------------------------------------------------
// Buffers with guards

constexpr std::size_t guard_count = 8;

template <class T>
T guard_value(std::size_t i)
{
  return make<T>(0xfeedface00000000ull + i);
}

/// n elements between guard_count guards on each side; the region starts as `fill`.
template <class T>
struct Guarded {
  std::vector<T> all;
  std::size_t n;
  template <class Fill>
  Guarded(std::size_t count, Fill&& fill) : n(count)
  {
    all.reserve(count + 2 * guard_count);
    for (std::size_t i = 0; i < guard_count; ++i) all.push_back(guard_value<T>(i));
    for (std::size_t i = 0; i < count; ++i) all.push_back(fill(i));
    for (std::size_t i = 0; i < guard_count; ++i) all.push_back(guard_value<T>(guard_count + i));
  }
  std::span<T> region() { return std::span<T>(all.data() + guard_count, n); }
  /// "" or where a guard was overwritten.
  std::string guards() const
  {
    for (std::size_t i = 0; i < guard_count; ++i) {
      if (!(all[i] == guard_value<T>(i))) return "the guard " + std::to_string(guard_count - i) + " before the output";
      if (!(all[guard_count + n + i] == guard_value<T>(guard_count + i)))
        return "the guard " + std::to_string(i) + " after the output";
    }
    return "";
  }
};

/// Compares out[0, check) with want[0, check); "" or the first difference.
template <class T>
std::string compare(std::span<const T> out, const std::vector<T>& want, std::size_t check)
{
  for (std::size_t i = 0; i < check; ++i)
    if (!(out[i] == want[i])) return "element " + std::to_string(i) + " is " + show(out[i]) + ", expected " + show(want[i]);
  return "";
}

// ---------------------------------------------------------------------------------------
// Running a case

/// The algorithms C may run on `topo` with the operator's commutativity and in-place use:
/// calls f(alg) for the pick-th of those that fit, or f(automatic) when pick is their count.
template <Collective C, bool Commutative, bool InPlace, class T, class F>
void with_algorithm(const T& topo, const Problem& problem, std::size_t pick, F&& f)
{
  std::size_t i = 0;
  collectives::testing::for_each_fitting<C, Commutative, InPlace>(topo, problem, [&](auto a) {
    if (i++ == pick) f(a);
  });
  if (pick == i) f(automatic);
}

template <Collective C, bool Commutative, bool InPlace, class T>
std::vector<std::string> algorithm_names(const T& topo, const Problem& problem)
{
  std::vector<std::string> names;
  collectives::testing::for_each_fitting<C, Commutative, InPlace>(
    topo, problem, [&](auto a) { names.push_back(collectives::testing::name_of(a)); });
  names.push_back("default");
  return names;
}

/// Picks the case's algorithm among `names` (the fitting ones, then "default").
void choose_algorithm(Case& c, const std::vector<std::string>& names)
{
  c.algorithm = static_cast<std::size_t>(c.pick % names.size());
  c.algorithm_name = names[c.algorithm];
}

/// Cases whose injected failure happened (the failing rank reached its fail_step).
std::size_t injected_failures = 0;

/// Runs body(comm, rank) on every rank of a team of p over FaultyEndpoints; exceptions
/// are failures, but for the injected one, which must end the run as the threads
/// transport promises. Returns whether the call completed (no injected failure happened).
template <class TopoT, class Body>
bool on_team(const Case& c, const TopoT& topo, Failure& failure, Body&& body)
{
  threads::Team team(c.p, c.options);
  std::vector<std::string> seen(c.p, "returned");
  const auto start = std::chrono::steady_clock::now();
  try {
    team.run([&](threads::Endpoint& ep) {
      FaultyEndpoint faulty(ep, c.faults);
      Communicator comm{faulty, topo};
      try {
        body(comm, ep.rank());
      } catch (const InjectedFault&) {
        seen[ep.rank()] = "injected";
        throw;
      } catch (const RankFailed& e) {
        seen[ep.rank()] = "RankFailed " + std::to_string(e.failed_rank());
        throw;
      } catch (const std::exception& e) {
        seen[ep.rank()] = std::string("exception: ") + e.what();
        throw;
      }
    });
  } catch (const InjectedFault& e) {
    // The injected failure: the rank that failed is named, every other rank returned or
    // was released naming it, promptly (a loose bound: a hang is what it catches).
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (c.faults.fail_rank != e.rank()) failure.set(std::string("an unexpected InjectedFault: ") + e.what());
    for (std::size_t r = 0; r < c.p; ++r) {
      const std::string want = r == c.faults.fail_rank ? "injected" : "RankFailed " + std::to_string(c.faults.fail_rank);
      if (seen[r] != want && (r == c.faults.fail_rank || seen[r] != "returned"))
        failure.set("after the injected failure rank " + std::to_string(r) + " ended with \"" + seen[r] + "\", expected \"" +
                    want + "\"");
    }
    if (seconds > 5) failure.set("the ranks took " + std::to_string(seconds) + " s to end after the injected failure");
    ++injected_failures;
    return false;
  } catch (const std::exception& e) {
    failure.set(std::string("exception: ") + e.what());
  }
  return true;
}

/// Element i of rank r's contribution (or block data) in case c.
template <class T>
T input(const Case& c, std::size_t r, std::size_t i)
{
  return make<T>(c.seed * 0x100000001b3ull ^ (std::uint64_t{r} << 40) ^ i);
}
/// What an output region holds before the call.
template <class T>
T garbage(const Case& c, std::size_t r, std::size_t i)
{
  return make<T>(~c.seed ^ (std::uint64_t{r} << 44) ^ (i * 31));
}

/// Left fold of contributions first..last at element i.
template <class T, class Op>
T fold(const Case& c, Op op, std::size_t first, std::size_t last, std::size_t i)
{
  T acc = input<T>(c, first, i);
  for (std::size_t r = first + 1; r <= last; ++r) acc = op(acc, input<T>(c, r, i));
  return acc;
}

/// Per rank: the guarded output, how much of it to check, and the expected values.
template <class T>
struct Outputs {
  std::vector<Guarded<T>> out;
  std::vector<std::vector<T>> want;
  std::vector<std::size_t> check;
};

/// Checks the guards and, when the call completed, the outputs (after an injected failure
/// the outputs are undefined, but nothing may be written outside them).
template <class T>
void verify(Outputs<T>& o, Failure& failure, bool completed)
{
  for (std::size_t r = 0; r < o.out.size() && !failure.failed; ++r) {
    const std::string g = o.out[r].guards();
    if (!g.empty()) failure.set("rank " + std::to_string(r) + ": " + g + " was overwritten");
    if (!completed) continue;
    const std::string d = compare<T>(o.out[r].region(), o.want[r], o.check[r]);
    if (!d.empty()) failure.set("rank " + std::to_string(r) + ": " + d);
  }
}

template <class T, class Fill>
Outputs<T> outputs(std::size_t p, Fill&& sizes)
{
  Outputs<T> o;
  for (std::size_t r = 0; r < p; ++r) {
    const std::size_t n = sizes(r);
    o.out.emplace_back(n, [&](std::size_t) { return guard_value<T>(99); });
    o.check.push_back(n);
    o.want.emplace_back();
  }
  return o;
}

// --- reductions -------------------------------------------------------------------------

template <Call K, class T, class Op, class TopoT>
void run_reduction(Case& c, const TopoT& topo, Failure& failure)
{
  constexpr bool commutes = is_commutative_v<Op, T>;
  constexpr Collective C = K == Call::reduce           ? Collective::reduce
                           : K == Call::reduce_scatter ? Collective::reduce_scatter
                           : K == Call::allreduce      ? Collective::allreduce
                                                       : Collective::scan; // scan and exscan
  const Op op{};
  Problem problem;
  problem.exclusive = K == Call::exscan;
  if constexpr (dynamic_topology_v<TopoT>)
    if (c.place == Place::in_place) choose_algorithm(c, algorithm_names<C, commutes, true>(topo, problem));
  if (c.place != Place::in_place) choose_algorithm(c, algorithm_names<C, commutes, false>(topo, problem));
  const std::size_t p = c.p;
  const std::size_t n = K == Call::reduce_scatter ? p * c.n : c.n; // contribution length
  const std::size_t m = c.n;                                       // reduce_scatter's block
  // reduce_scatter: separate, the output is the block; aliased, the output region holds
  // the contribution and its first m elements receive the block (the rest must stay).
  const std::size_t out_n = K == Call::reduce_scatter && c.place == Place::separate ? m : n;
  // Separate: inputs apart, outputs guarded. Aliased / in place: the output region starts
  // as the contribution and is passed as both.
  Outputs<T> o;
  std::vector<std::vector<T>> in(p);
  for (std::size_t r = 0; r < p; ++r) {
    for (std::size_t i = 0; i < n; ++i) in[r].push_back(input<T>(c, r, i));
    const bool shared = c.place != Place::separate;
    o.out.emplace_back(out_n, [&](std::size_t i) { return shared ? input<T>(c, r, i) : garbage<T>(c, r, i); });
    // Expected: the region as it starts, with what the call writes.
    std::vector<T> want;
    for (std::size_t i = 0; i < out_n; ++i) want.push_back(o.out[r].region()[i]);
    std::size_t check = out_n;
    switch (K) {
    case Call::reduce:
      if (r == c.root)
        for (std::size_t i = 0; i < n; ++i) want[i] = fold<T>(c, op, 0, p - 1, i);
      break;
    case Call::allreduce:
      for (std::size_t i = 0; i < n; ++i) want[i] = fold<T>(c, op, 0, p - 1, i);
      break;
    case Call::scan:
      for (std::size_t i = 0; i < n; ++i) want[i] = fold<T>(c, op, 0, r, i);
      break;
    case Call::exscan:
      if (r > 0)
        for (std::size_t i = 0; i < n; ++i) want[i] = fold<T>(c, op, 0, r - 1, i);
      break;
    default: // reduce_scatter: block r in the first m elements (in place: the rest is scratch)
      for (std::size_t i = 0; i < m; ++i) want[i] = fold<T>(c, op, 0, p - 1, r * m + i);
      if (c.place == Place::in_place) check = m;
      break;
    }
    o.want.push_back(std::move(want));
    o.check.push_back(check);
  }
  auto body = [&](auto& comm, std::size_t me) {
    auto out = o.out[me].region();
    const std::span<const T> send = c.place == Place::separate ? std::span<const T>(in[me]) : std::span<const T>(out);
    const std::span<T> recv = K == Call::reduce_scatter && c.place == Place::aliased ? out.first(m) : out;
    using collectives::testing::call_with;
    auto in_place = [&](auto alg) {
      if constexpr (K == Call::reduce) call_with(reduce, alg, comm, out, op, c.root);
      else if constexpr (K == Call::reduce_scatter) call_with(reduce_scatter, alg, comm, out, op);
      else if constexpr (K == Call::allreduce) call_with(allreduce, alg, comm, out, op);
      else if constexpr (K == Call::scan) call_with(scan, alg, comm, out, op);
      else call_with(exscan, alg, comm, out, op);
    };
    auto separate = [&](auto alg) {
      if constexpr (K == Call::reduce) call_with(reduce, alg, comm, send, recv, op, c.root);
      else if constexpr (K == Call::reduce_scatter) call_with(reduce_scatter, alg, comm, send, recv, op);
      else if constexpr (K == Call::allreduce) call_with(allreduce, alg, comm, send, recv, op);
      else if constexpr (K == Call::scan) call_with(scan, alg, comm, send, recv, op);
      else call_with(exscan, alg, comm, send, recv, op);
    };
    if (c.place == Place::in_place) {
      if constexpr (dynamic_topology_v<TopoT>) with_algorithm<C, commutes, true>(topo, problem, c.algorithm, in_place);
    } else {
      with_algorithm<C, commutes, false>(topo, problem, c.algorithm, separate);
    }
  };
  const bool completed = on_team(c, topo, failure, body);
  if (!failure.failed) verify(o, failure, completed);
}

// --- copying collectives ----------------------------------------------------------------

template <Call K, class T, class TopoT>
void run_copy(Case& c, const TopoT& topo, Failure& failure)
{
  constexpr Collective C = K == Call::broadcast   ? Collective::broadcast
                           : K == Call::allgather ? Collective::allgather
                           : K == Call::scatter   ? Collective::scatter
                           : K == Call::gather    ? Collective::gather
                           : K == Call::alltoall  ? Collective::alltoall
                           : K == Call::alltoallv ? Collective::alltoallv
                                                  : Collective::shift;
  Problem problem;
  problem.q = c.q;
  if constexpr (K == Call::allgather && dynamic_topology_v<TopoT>)
    if (c.place == Place::in_place) choose_algorithm(c, algorithm_names<C, true, true>(topo, problem));
  if (c.place != Place::in_place) choose_algorithm(c, algorithm_names<C, true, false>(topo, problem));
  const std::size_t p = c.p, m = c.n;
  const bool aliased = c.place == Place::aliased;
  const bool shared = c.place != Place::separate; // aliased or in place
  Outputs<T> o;
  std::vector<std::vector<T>> in(p);
  // alltoallv: rank i sends count(i, j) elements to j, the receive blocks spread with gaps.
  auto count = [&](std::size_t i, std::size_t j) { return static_cast<std::size_t>(mix(c.seed ^ (i * 977 + j)) % (m + 1)); };
  auto gap = [&](std::size_t i, std::size_t j) {
    return c.packed ? std::size_t{0} : static_cast<std::size_t>(mix(c.seed ^ (i * 131 + j + 7)) % 3);
  };
  std::vector<std::vector<std::size_t>> sc(p), sd(p), rc(p), rd(p);
  for (std::size_t r = 0; r < p; ++r) {
    std::size_t in_n = 0, out_n = 0;
    switch (K) {
    case Call::broadcast: out_n = m; break;
    case Call::allgather: in_n = m, out_n = p * m; break;
    case Call::scatter: in_n = r == c.root ? p * m : 0, out_n = m; break;
    case Call::gather: in_n = m, out_n = r == c.root ? p * m : 0; break;
    case Call::alltoall: in_n = out_n = p * m; break;
    case Call::shift: in_n = out_n = m; break;
    default: // alltoallv
      for (std::size_t j = 0; j < p; ++j) {
        sc[r].push_back(count(r, j));
        sd[r].push_back(in_n);
        in_n += count(r, j);
        out_n += gap(r, j);
        rc[r].push_back(count(j, r));
        rd[r].push_back(out_n);
        out_n += count(j, r);
      }
      out_n += gap(r, p);
      break;
    }
    for (std::size_t i = 0; i < in_n; ++i) in[r].push_back(input<T>(c, r, i));
    // Aliased: the output starts as the input (alltoall, shift) or holds it as block r
    // (allgather), and the same memory is passed as both.
    o.out.emplace_back(out_n, [&](std::size_t i) {
      if (shared && (K == Call::alltoall || K == Call::shift)) return input<T>(c, r, i);
      if (shared && K == Call::allgather && i / m == r) return input<T>(c, r, i % m);
      if (K == Call::broadcast && r == c.root) return input<T>(c, r, i);
      return garbage<T>(c, r, i);
    });
    std::vector<T> want;
    for (std::size_t i = 0; i < out_n; ++i) want.push_back(o.out[r].region()[i]);
    switch (K) {
    case Call::broadcast:
      for (std::size_t i = 0; i < m; ++i) want[i] = input<T>(c, c.root, i);
      break;
    case Call::allgather:
      for (std::size_t j = 0; j < p; ++j)
        for (std::size_t i = 0; i < m; ++i) want[j * m + i] = input<T>(c, j, i);
      break;
    case Call::scatter:
      for (std::size_t i = 0; i < m; ++i) want[i] = input<T>(c, c.root, r * m + i);
      break;
    case Call::gather:
      if (r == c.root)
        for (std::size_t j = 0; j < p; ++j)
          for (std::size_t i = 0; i < m; ++i) want[j * m + i] = input<T>(c, j, i);
      break;
    case Call::alltoall:
      for (std::size_t j = 0; j < p; ++j)
        for (std::size_t i = 0; i < m; ++i) want[j * m + i] = input<T>(c, j, r * m + i);
      break;
    case Call::shift: {
      const auto sp = static_cast<std::ptrdiff_t>(p);
      const auto from = static_cast<std::size_t>(((static_cast<std::ptrdiff_t>(r) - c.q) % sp + sp) % sp);
      for (std::size_t i = 0; i < m; ++i) want[i] = input<T>(c, from, i);
      break;
    }
    default: break; // alltoallv: below, once every rank's layout is known
    }
    o.want.push_back(std::move(want));
    o.check.push_back(out_n);
  }
  if constexpr (K == Call::alltoallv)
    for (std::size_t r = 0; r < p; ++r)
      for (std::size_t j = 0; j < p; ++j)
        for (std::size_t i = 0; i < rc[r][j]; ++i) o.want[r][rd[r][j] + i] = input<T>(c, j, sd[j][r] + i);
  auto body = [&](auto& comm, std::size_t me) {
    auto out = o.out[me].region();
    std::span<const T> send(in[me]);
    if (aliased) {
      if constexpr (K == Call::allgather) send = std::span<const T>(out).subspan(me * m, m);
      else if constexpr (K == Call::alltoall || K == Call::shift) send = out;
    }
    auto run = [&](auto alg) {
      using collectives::testing::call_with;
      if constexpr (K == Call::broadcast) call_with(broadcast, alg, comm, out, c.root);
      else if constexpr (K == Call::allgather) call_with(allgather, alg, comm, send, out);
      else if constexpr (K == Call::scatter) call_with(scatter, alg, comm, send, out, c.root);
      else if constexpr (K == Call::gather) call_with(gather, alg, comm, send, out, c.root);
      else if constexpr (K == Call::alltoall) call_with(alltoall, alg, comm, send, out);
      else if constexpr (K == Call::shift) call_with(shift, alg, comm, send, out, c.q);
      else if (c.packed) // displacements: the exclusive prefix sums of the counts
        call_with(alltoallv, alg, comm, send, std::span<const std::size_t>(sc[me]), out,
                  std::span<const std::size_t>(rc[me]));
      else
        call_with(alltoallv, alg, comm, send, std::span<const std::size_t>(sc[me]), std::span<const std::size_t>(sd[me]),
                  out, std::span<const std::size_t>(rc[me]), std::span<const std::size_t>(rd[me]));
    };
    if constexpr (K == Call::allgather && dynamic_topology_v<TopoT>) {
      if (c.place == Place::in_place) {
        // Block me of the buffer is this rank's contribution (set up as for aliased).
        with_algorithm<C, true, true>(topo, problem, c.algorithm, [&](auto alg) {
          collectives::testing::call_with(allgather, alg, comm, out);
        });
        return;
      }
    }
    with_algorithm<C, true, false>(topo, problem, c.algorithm, run);
  };
  const bool completed = on_team(c, topo, failure, body);
  if (!failure.failed) verify(o, failure, completed);
}

template <class TopoT>
void run_barrier(Case& c, const TopoT& topo, Failure& failure)
{
  choose_algorithm(c, algorithm_names<Collective::barrier, true, false>(topo, Problem{}));
  // No rank leaves a barrier before every rank has entered it (two rounds).
  std::atomic<std::size_t> arrived{0};
  std::atomic<bool> early{false};
  const bool completed = on_team(c, topo, failure, [&](auto& comm, std::size_t) {
    for (std::size_t round = 1; round <= 2; ++round) {
      arrived.fetch_add(1);
      with_algorithm<Collective::barrier, true, false>(topo, Problem{}, c.algorithm,
                                                       [&](auto alg) { collectives::testing::call_with(barrier, alg, comm); });
      if (arrived.load() != round * c.p) early = true;
      with_algorithm<Collective::barrier, true, false>(topo, Problem{}, c.algorithm,
                                                       [&](auto alg) { collectives::testing::call_with(barrier, alg, comm); });
    }
  });
  if (!failure.failed && completed && early) failure.set("a rank left a barrier before every rank had entered it");
}


// ---------------------------------------------------------------------------------------
// Dispatch: the case's run-time choices to the instantiated combinations

template <Call K, class TopoT>
void run_call(Case& c, const TopoT& topo, Failure& failure)
{
  constexpr Topo t = topo_of<TopoT>();
  if constexpr (K == Call::barrier) {
    run_barrier(c, topo, failure);
  } else if constexpr (is_reduction(K)) {
    switch (c.kind) {
    case Kind::int_plus:
      if constexpr (allowed(t, Kind::int_plus)) return run_reduction<K, int, std::plus<>>(c, topo, failure);
      break;
    case Kind::int_max:
      if constexpr (allowed(t, Kind::int_max)) return run_reduction<K, int, maximum>(c, topo, failure);
      break;
    case Kind::double_plus:
      if constexpr (allowed(t, Kind::double_plus)) return run_reduction<K, double, std::plus<>>(c, topo, failure);
      break;
    case Kind::affine:
      if constexpr (allowed(t, Kind::affine)) return run_reduction<K, Affine, Compose>(c, topo, failure);
      break;
    default: break;
    }
    failure.set("internal: no reduction instantiated for this topology and kind");
  } else {
    switch (c.kind) {
    case Kind::int_copy:
      if constexpr (allowed(t, Kind::int_copy)) return run_copy<K, int>(c, topo, failure);
      break;
    case Kind::double_copy:
      if constexpr (allowed(t, Kind::double_copy)) return run_copy<K, double>(c, topo, failure);
      break;
    case Kind::blob_copy:
      if constexpr (allowed(t, Kind::blob_copy)) return run_copy<K, Blob24>(c, topo, failure);
      break;
    default: break;
    }
    failure.set("internal: no copy instantiated for this topology and kind");
  }
}

template <class TopoT>
void run_on(Case& c, const TopoT& topo, Failure& failure)
{
  switch (c.call) {
  case Call::broadcast: return run_call<Call::broadcast>(c, topo, failure);
  case Call::reduce: return run_call<Call::reduce>(c, topo, failure);
  case Call::allgather: return run_call<Call::allgather>(c, topo, failure);
  case Call::reduce_scatter: return run_call<Call::reduce_scatter>(c, topo, failure);
  case Call::allreduce: return run_call<Call::allreduce>(c, topo, failure);
  case Call::scan: return run_call<Call::scan>(c, topo, failure);
  case Call::exscan: return run_call<Call::exscan>(c, topo, failure);
  case Call::scatter: return run_call<Call::scatter>(c, topo, failure);
  case Call::gather: return run_call<Call::gather>(c, topo, failure);
  case Call::alltoall: return run_call<Call::alltoall>(c, topo, failure);
  case Call::alltoallv: return run_call<Call::alltoallv>(c, topo, failure);
  case Call::shift: return run_call<Call::shift>(c, topo, failure);
  case Call::barrier: return run_call<Call::barrier>(c, topo, failure);
  }
}

Failure run_case(Case& c)
{
  Failure failure;
  switch (c.topo) {
  case Topo::ring: run_on(c, Ring<>{c.p}, failure); break;
  case Topo::mesh: run_on(c, Mesh<>{c.rows, c.cols}, failure); break;
  case Topo::hypercube: run_on(c, Hypercube<>::of_dims(c.dims), failure); break;
  case Topo::ring5: run_on(c, Ring<5>{}, failure); break;
  case Topo::mesh23: run_on(c, Mesh<2, 3>{}, failure); break;
  case Topo::hypercube2: run_on(c, Hypercube<2>{}, failure); break;
  }
  return failure;
}

// ---------------------------------------------------------------------------------------
// Drawing cases

struct Rng {
  std::uint64_t state;
  std::uint64_t next() { return state = mix(state); }
  /// Uniform in [0, n).
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }
};

Case draw(std::uint64_t seed, std::uint64_t number)
{
  Rng rng{mix(seed) ^ mix(number * 0x2545f4914f6cdd1dull + 1)};
  Case c;
  c.seed = rng.next();
  const std::size_t t = rng.below(10); // ring 3, mesh 2, hypercube 2, each static 1
  c.topo = t < 3 ? Topo::ring : t < 5 ? Topo::mesh : t < 7 ? Topo::hypercube : static_cast<Topo>(t - 4);
  switch (c.topo) {
  case Topo::ring: c.p = 1 + rng.below(9); break;
  case Topo::mesh:
    c.rows = 1 + rng.below(3);
    c.cols = 1 + rng.below(9 / c.rows);
    c.p = c.rows * c.cols;
    break;
  case Topo::hypercube:
    c.dims = rng.below(4);
    c.p = std::size_t{1} << c.dims;
    break;
  case Topo::ring5: c.p = 5; break;
  case Topo::mesh23: c.p = 6; break;
  case Topo::hypercube2: c.p = 4; break;
  }
  c.call = static_cast<Call>(rng.below(call_count));
  // The kinds this topology type has for the call.
  std::vector<Kind> kinds;
  for (int k = 0; k < 7; ++k) {
    const auto kind = static_cast<Kind>(k);
    const bool reduction_kind = k >= static_cast<int>(Kind::int_plus);
    if (allowed(c.topo, kind) && reduction_kind == is_reduction(c.call)) kinds.push_back(kind);
  }
  c.kind = kinds[rng.below(kinds.size())];
  // Elements: mostly small, sometimes hundreds or thousands, rarely up to 100000.
  const std::size_t size_class = rng.below(100);
  std::size_t n = size_class < 60 ? rng.below(9) : size_class < 85 ? 9 + rng.below(292)
                  : size_class < 97                               ? 301 + rng.below(4700)
                                                                  : 5001 + rng.below(95000);
  const bool per_block = c.call == Call::allgather || c.call == Call::reduce_scatter || c.call == Call::scatter ||
                         c.call == Call::gather || c.call == Call::alltoall || c.call == Call::alltoallv;
  if (per_block && n > 300) n /= c.p; // about n elements per rank in all
  c.n = n;
  c.root = rng.below(c.p);
  c.q = static_cast<std::ptrdiff_t>(rng.below(4 * c.p + 1)) - static_cast<std::ptrdiff_t>(2 * c.p);
  // Buffers: in-place overloads on the dynamic topologies, aliased buffers where the
  // call allows overlap.
  std::vector<Place> places{Place::separate};
  const bool dyn = dynamic_topology(c.topo);
  if (is_reduction(c.call) || c.call == Call::allgather || c.call == Call::alltoall || c.call == Call::shift)
    places.push_back(Place::aliased);
  if (dyn && (is_reduction(c.call) || c.call == Call::allgather)) places.push_back(Place::in_place);
  c.place = places[rng.below(places.size())];
  c.pick = rng.next();
  switch (rng.below(3)) {
  case 0: break; // defaults: 512 B eager (4 KiB with more ranks than cores)
  // Large messages shared in small chunks (also with more ranks than cores, where the
  // default never shares).
  case 1: c.options = threads::Options{.eager_bytes = 64, .channel_bytes = 512, .spin = 16, .share_chunk = 40}; break;
  default: c.options = threads::Options{.eager_bytes = 256, .channel_bytes = 0, .spin = 0, .share_chunk = 1024}; break;
  }
  c.faults.seed = rng.next();
  const std::size_t delay = rng.below(4);
  c.faults.max_delay_us = delay == 0 ? 40 : delay == 1 ? 5 : 0;
  c.faults.permute = rng.chance(50);
  c.faults.split = rng.chance(50);
  c.packed = rng.chance(50);
  // One case in ten: a rank fails at one of its first exchanges (a step it may not reach).
  if (rng.chance(10)) {
    c.faults.fail_rank = rng.below(c.p);
    c.faults.fail_step = rng.below(6);
  }
  return c;
}

int usage(const char* argv0)
{
  std::fprintf(stderr, "usage: %s [--seed N] [--cases K] [--only C] [--verbose]\n", argv0);
  return 2;
}

} // namespace

int main(int argc, char** argv)
{
  std::uint64_t seed = 20261124;
  std::uint64_t cases = 2000;
  bool only = false, verbose = false;
  std::uint64_t only_case = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::uint64_t {
      if (i + 1 >= argc) std::exit(usage(argv[0]));
      char* end = nullptr;
      const std::uint64_t v = std::strtoull(argv[++i], &end, 0);
      if (end == argv[i] || *end != '\0') std::exit(usage(argv[0]));
      return v;
    };
    if (a == "--seed") seed = value();
    else if (a == "--cases") cases = value();
    else if (a == "--only") only = true, only_case = value();
    else if (a == "--verbose") verbose = true;
    else return usage(argv[0]);
  }
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, std::size_t> per_call;
  std::size_t run = 0;
  for (std::uint64_t k = only ? only_case : 0; k < (only ? only_case + 1 : cases); ++k) {
    Case c = draw(seed, k);
    const Failure f = run_case(c);
    if (verbose) std::printf("case %llu: %s\n", static_cast<unsigned long long>(k), c.describe().c_str());
    if (f.failed) {
      std::printf("collectives_fuzz: MISMATCH, seed %llu, case %llu\n  case: %s\n  %s\n  rerun: %s --seed %llu --only %llu\n",
                  static_cast<unsigned long long>(seed), static_cast<unsigned long long>(k), c.describe().c_str(),
                  f.what.c_str(), argv[0], static_cast<unsigned long long>(seed), static_cast<unsigned long long>(k));
      return 1;
    }
    ++per_call[call_names[static_cast<int>(c.call)]];
    ++run;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string summary;
  for (const auto& [name, n] : per_call) summary += (summary.empty() ? "" : ", ") + name + " " + std::to_string(n);
  std::printf("collectives_fuzz: seed %llu, %zu cases passed in %.1f s (%s; %zu ended by an injected failure)\n",
              static_cast<unsigned long long>(seed), run, seconds, summary.c_str(), injected_failures);
  return 0;
}
