// reduce, allreduce, reduce_scatter, scan and exscan over the MPI transport give what
// Open MPI's MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter_block, MPI_Scan and MPI_Exscan
// give on the same input, and the serial left fold x0 op x1 op ... op x(p-1): for every
// algorithm (and the default) on every topology it fits at this rank count, sizes 0, 1, 7, 300
// and 10000, for sum/max/min on double, int and long and for a non-commutative operator
// (2x2 matrix products, an MPI_Op created with commute = 0). In place too, with every
// algorithm, against MPI_IN_PLACE (each runs on the caller's buffer; on this transport the
// executor stages the combining receives, where threads combine on receipt). reduce tries roots first, middle
// and last with the sum of doubles and the matrix product, the middle root with the others.

#include <catch2/catch.hpp>

#include "../support/matrix.hpp"
#include "../support/sweeps.hpp"
#include "support.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

using namespace collectives;
using collectives::mpi_testing::call_with;
using collectives::mpi_testing::Failures;
using collectives::mpi_testing::for_each_algorithm_and_topology;
using collectives::mpi_testing::name_of;
using collectives::mpi_testing::mpi_datatype;
using collectives::mpi_testing::or_abort;
using collectives::mpi_testing::world_size;
using collectives::testing::Mat;
using collectives::testing::mat_mul;
using collectives::testing::roots_of;

namespace {

/// Vector lengths: the long one takes the algorithms' long-message paths.
constexpr std::size_t sizes[] = {0, 1, 7, 300, 10000};

/// Rank r's element i: mixed signs and not monotonic in r, so max and min are not simply
/// the last or first rank's; doubles are exact multiples of 1/4 whose sums are exact in
/// any order.
template <class T>
T value(std::size_t r, std::size_t i)
{
  const long v = static_cast<long>(((r + 1) * 7919 + i * 104729 + r * r * 31) % 20011) - 10000;
  if constexpr (std::is_same_v<T, Mat>)
    return Mat{static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(r + 1), static_cast<std::uint32_t>(i * 3 + r),
               static_cast<std::uint32_t>(v * 7 + 1)};
  else if constexpr (std::is_same_v<T, double>)
    return static_cast<double>(v) + 0.25 * static_cast<double>(r % 4);
  else
    return static_cast<T>(v);
}

template <class T>
T poison()
{
  if constexpr (std::is_same_v<T, Mat>) return Mat{7, 7, 7, 7};
  else return static_cast<T>(-123456);
}

/// An operator with its MPI twin, and the serial reference.
template <class T_, class Op>
struct Reduction {
  using T = T_;
  const char* name;
  Op op;
  MPI_Datatype type;
  MPI_Op mpi_op;
  /// Whether reduce tries every root kind with it, or the middle rank only (to keep the
  /// run short: the operators exercise the same schedules).
  bool every_root;

  static constexpr bool commutative = is_commutative_v<Op, T>;

  /// Rank r's contribution: n elements from index `first`.
  std::vector<T> contribution(std::size_t r, std::size_t n, std::size_t first = 0) const
  {
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = value<T>(r, first + i);
    return v;
  }
  /// Elements first..first+n-1 of the left fold x0 op ... op x(hi).
  std::vector<T> fold(std::size_t hi, std::size_t n, std::size_t first = 0) const
  {
    std::vector<T> acc = contribution(0, n, first);
    for (std::size_t r = 1; r <= hi; ++r)
      for (std::size_t i = 0; i < n; ++i) acc[i] = op(acc[i], value<T>(r, first + i));
    return acc;
  }
};

template <class T, class Op>
Reduction<T, Op> make_reduction(const char* name, Op op, MPI_Datatype type, MPI_Op mpi_op, bool every_root)
{
  return {name, op, type, mpi_op, every_root};
}

/// The matrix product as an MPI datatype and a non-commutative MPI_Op; freed on scope exit.
class NativeMatProduct {
public:
  NativeMatProduct()
  {
    MPI_Type_contiguous(4, MPI_UINT32_T, &type_);
    MPI_Type_commit(&type_);
    MPI_Op_create(&combine, /*commute=*/0, &op_);
  }
  NativeMatProduct(const NativeMatProduct&) = delete;
  NativeMatProduct& operator=(const NativeMatProduct&) = delete;
  ~NativeMatProduct()
  {
    MPI_Op_free(&op_);
    MPI_Type_free(&type_);
  }
  MPI_Datatype type() const { return type_; }
  MPI_Op op() const { return op_; }

private:
  // MPI's contract: inout[i] = in[i] op inout[i], in holding the lower ranks' values.
  static void combine(void* in, void* inout, int* len, MPI_Datatype*)
  {
    const auto* x = static_cast<const Mat*>(in);
    auto* y = static_cast<Mat*>(inout);
    for (int i = 0; i < *len; ++i) y[i] = mat_mul(x[i], y[i]);
  }
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

/// Calls f(reduction) for each operator under test.
template <class F>
void for_each_reduction(F&& f)
{
  f(make_reduction<double>("sum of doubles", std::plus<>{}, MPI_DOUBLE, MPI_SUM, true));
  f(make_reduction<int>("sum of ints", std::plus<>{}, MPI_INT, MPI_SUM, false));
  f(make_reduction<int>("max of ints", maximum{}, MPI_INT, MPI_MAX, false));
  f(make_reduction<long>("min of longs", minimum{}, MPI_LONG, MPI_MIN, false));
  const NativeMatProduct native;
  f(make_reduction<Mat>("matrix product", mat_mul, native.type(), native.op(), true));
}

/// Runs body(ep, reduction, n, failures) for every operator and size, each as its own
/// Catch2 check.
template <class Body>
void check_every_case(const char* collective, Body&& body)
{
  const std::size_t p = world_size();
  mpi::Endpoint ep = or_abort([] { return mpi::Endpoint(MPI_COMM_WORLD); });
  for_each_reduction([&](const auto& red) {
    for (std::size_t n : sizes) {
      INFO(collective << ", " << red.name << ", n = " << n << ", p = " << p);
      Failures failures;
      // body returns how many (topology, algorithm) pairs it ran: at least a ring's default
      // and one algorithm.
      const std::size_t ran = body(ep, red, n, failures);
      failures.expect(ran >= 2, "only " + std::to_string(ran) + " (topology, algorithm) pairs ran");
      CAPTURE(failures.names());
      CHECK(failures.names().empty());
    }
  });
}

template <class Topo>
using Comm = Communicator<mpi::Endpoint, Topo>;

// ---------------------------------------------------------------------------------------
// reduce
// ---------------------------------------------------------------------------------------

/// Out of place and in place against MPI_Reduce (MPI_IN_PLACE at the root) and the fold;
/// the non-roots' buffers are left as they were.
template <class Red, class Topo, class Alg>
bool reduce_matches_mpi(mpi::Endpoint& ep, const Red& red, const Topo& topo, std::size_t n, std::size_t root, Alg alg)
{
  using T = typename Red::T;
  const std::size_t p = ep.size(), me = ep.rank();
  const auto send = red.contribution(me, n);
  std::vector<T> got(n, poison<T>()), want(n, poison<T>());
  auto in_place = send, in_place_want = send;
  or_abort([&] {
    Comm<Topo> comm{ep, topo};
    call_with(reduce, alg, comm, send, got, red.op, root);
    call_with(reduce, alg, comm, in_place, red.op, root);
  });
  const int count = static_cast<int>(n), r = static_cast<int>(root);
  MPI_Reduce(send.data(), want.data(), count, red.type, red.mpi_op, r, MPI_COMM_WORLD);
  MPI_Reduce(me == root ? MPI_IN_PLACE : in_place_want.data(), in_place_want.data(), count, red.type, red.mpi_op, r,
               MPI_COMM_WORLD);
  if (me != root) return got == std::vector<T>(n, poison<T>()) && in_place == send;
  const auto fold = red.fold(p - 1, n);
  return got == want && want == fold && in_place == in_place_want && in_place == fold;
}


// ---------------------------------------------------------------------------------------
// allreduce
// ---------------------------------------------------------------------------------------

template <class Red, class Topo, class Alg>
bool allreduce_matches_mpi(mpi::Endpoint& ep, const Red& red, const Topo& topo, std::size_t n, Alg alg)
{
  using T = typename Red::T;
  const auto send = red.contribution(ep.rank(), n);
  std::vector<T> got(n, poison<T>()), want(n, poison<T>());
  // The algorithms that need separate buffers (the ring) do not compile in place.
  constexpr bool has_in_place = mpi_testing::runs_in_place<Alg>;
  auto in_place = send;
  or_abort([&] {
    Comm<Topo> comm{ep, topo};
    call_with(allreduce, alg, comm, send, got, red.op);
    if constexpr (has_in_place) call_with(allreduce, alg, comm, in_place, red.op);
  });
  MPI_Allreduce(send.data(), want.data(), static_cast<int>(n), red.type, red.mpi_op, MPI_COMM_WORLD);
  return got == want && want == red.fold(ep.size() - 1, n) && (!has_in_place || in_place == want);
}


// ---------------------------------------------------------------------------------------
// reduce_scatter
// ---------------------------------------------------------------------------------------

/// Blocks of m: out of place against MPI_Reduce_scatter_block, in place against it with
/// MPI_IN_PLACE (the result in the first m elements), both against the fold.
template <class Red, class Topo, class Alg>
bool reduce_scatter_matches_mpi(mpi::Endpoint& ep, const Red& red, const Topo& topo, std::size_t m, Alg alg)
{
  using T = typename Red::T;
  const std::size_t p = ep.size(), me = ep.rank();
  const auto send = red.contribution(me, p * m);
  std::vector<T> got(m, poison<T>()), want(m, poison<T>());
  auto in_place = send, in_place_want = send;
  or_abort([&] {
    Comm<Topo> comm{ep, topo};
    call_with(reduce_scatter, alg, comm, send, got, red.op);
    call_with(reduce_scatter, alg, comm, in_place, red.op);
  });
  const int count = static_cast<int>(m);
  MPI_Reduce_scatter_block(send.data(), want.data(), count, red.type, red.mpi_op, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block(MPI_IN_PLACE, in_place_want.data(), count, red.type, red.mpi_op, MPI_COMM_WORLD);
  in_place.resize(m);
  in_place_want.resize(m);
  const auto fold = red.fold(p - 1, m, me * m);
  return got == want && want == fold && in_place == in_place_want && in_place == fold;
}


// ---------------------------------------------------------------------------------------
// scan and exscan
// ---------------------------------------------------------------------------------------

/// scan and exscan, out of place and in place, against MPI_Scan and MPI_Exscan and the
/// fold. exscan leaves rank 0's buffer as it was (MPI leaves it undefined: not compared).
template <class Red, class Topo, class Alg>
bool scan_matches_mpi(mpi::Endpoint& ep, const Red& red, const Topo& topo, std::size_t n, Alg alg)
{
  using T = typename Red::T;
  const std::size_t me = ep.rank();
  const auto send = red.contribution(me, n);
  std::vector<T> got(n, poison<T>()), want(n, poison<T>()), ex_got(n, poison<T>()), ex_want(n, poison<T>());
  auto in_place = send, ex_in_place = send;
  or_abort([&] {
    Comm<Topo> comm{ep, topo};
    call_with(scan, alg, comm, send, got, red.op);
    call_with(exscan, alg, comm, send, ex_got, red.op);
    call_with(scan, alg, comm, in_place, red.op);
    call_with(exscan, alg, comm, ex_in_place, red.op);
  });
  const int count = static_cast<int>(n);
  MPI_Scan(send.data(), want.data(), count, red.type, red.mpi_op, MPI_COMM_WORLD);
  MPI_Exscan(send.data(), ex_want.data(), count, red.type, red.mpi_op, MPI_COMM_WORLD);
  const bool inclusive = got == want && want == red.fold(me, n) && in_place == want;
  if (me == 0)
    return inclusive && ex_got == std::vector<T>(n, poison<T>()) && ex_in_place == send;
  return inclusive && ex_got == ex_want && ex_want == red.fold(me - 1, n) &&
         ex_in_place == ex_want;
}


} // namespace

TEST_CASE("every reduce algorithm over MPI equals MPI_Reduce", "[mpi][reduce]")
{
  check_every_case("reduce", [](mpi::Endpoint& ep, const auto& red, std::size_t n, Failures& failures) {
    std::size_t ran = 0;
    const std::size_t p = ep.size();
    for (std::size_t root : red.every_root ? roots_of(p) : std::vector<std::size_t>{p / 2})
      ran += for_each_algorithm_and_topology<Collective::reduce, std::remove_cvref_t<decltype(red)>::commutative>(
        p, [&](const auto& topo, auto alg, const std::string& where) {
          failures.expect(reduce_matches_mpi(ep, red, topo, n, root, alg),
                          name_of(alg) + " on " + where + " to root " + std::to_string(root));
        });
    return ran;
  });
}

TEST_CASE("every allreduce algorithm over MPI equals MPI_Allreduce", "[mpi][allreduce]")
{
  check_every_case("allreduce", [](mpi::Endpoint& ep, const auto& red, std::size_t n, Failures& failures) {
    std::size_t ran = 0;
    ran += for_each_algorithm_and_topology<Collective::allreduce, std::remove_cvref_t<decltype(red)>::commutative>(
      ep.size(), [&](const auto& topo, auto alg, const std::string& where) {
        failures.expect(allreduce_matches_mpi(ep, red, topo, n, alg), name_of(alg) + " on " + where);
      });
    return ran;
  });
}

TEST_CASE("every reduce_scatter algorithm over MPI equals MPI_Reduce_scatter_block", "[mpi][reduce_scatter]")
{
  check_every_case("reduce_scatter", [](mpi::Endpoint& ep, const auto& red, std::size_t n, Failures& failures) {
    std::size_t ran = 0;
    // Blocks of n elements, but the long case sends n in all, as for the others.
    const std::size_t p = ep.size(), m = n > 7 ? (n + p - 1) / p : n;
    ran += for_each_algorithm_and_topology<Collective::reduce_scatter, std::remove_cvref_t<decltype(red)>::commutative>(
      p, [&](const auto& topo, auto alg, const std::string& where) {
        failures.expect(reduce_scatter_matches_mpi(ep, red, topo, m, alg), name_of(alg) + " on " + where);
      });
    return ran;
  });
}

TEST_CASE("every scan and exscan algorithm over MPI equals MPI_Scan and MPI_Exscan", "[mpi][scan]")
{
  check_every_case("scan", [](mpi::Endpoint& ep, const auto& red, std::size_t n, Failures& failures) {
    std::size_t ran = 0;
    ran += for_each_algorithm_and_topology<Collective::scan, std::remove_cvref_t<decltype(red)>::commutative>(
      ep.size(), [&](const auto& topo, auto alg, const std::string& where) {
        failures.expect(scan_matches_mpi(ep, red, topo, n, alg), name_of(alg) + " on " + where);
      });
    return ran;
  });
}

TEST_CASE("allreduce of inexact doubles gives the same bits on every rank, close to MPI_Allreduce", "[mpi][allreduce]")
{
  // Rounding makes the sum depend on the order of combination: the library promises one
  // result on every rank, MPI only one close to it.
  mpi::Endpoint ep = or_abort([] { return mpi::Endpoint(MPI_COMM_WORLD); });
  const std::size_t n = 1000, me = ep.rank();
  std::vector<double> send(n);
  for (std::size_t i = 0; i < n; ++i) send[i] = 0.1 * static_cast<double>(me + 1) + 1e-7 * static_cast<double>(i);
  Failures failures;
  auto check = [&](auto alg) {
    std::vector<double> got(n), first(n), want(n);
    or_abort([&] {
      Communicator comm{ep};
      call_with(allreduce, alg, comm, send, got, std::plus<>{});
    });
    first = got;
    MPI_Bcast(first.data(), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allreduce(send.data(), want.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    bool close = true;
    for (std::size_t i = 0; i < n; ++i) close = close && std::abs(got[i] - want[i]) <= 1e-12 * std::abs(want[i]);
    failures.expect(got == first && close, name_of(alg));
  };
  // Every algorithm of allreduce's list that fits, and the default.
  testing::for_each_fitting_and_default<Collective::allreduce>(Ring<>{ep.size()}, Problem{}, check);
  CAPTURE(failures.names());
  CHECK(failures.names().empty());
}

namespace {

/// The matrix product in MPI's array form only (as NativeMatProduct::combine):
/// inout[i] = in[i] * inout[i], `in` holding the lower ranks' values.
struct MatMulArray {
  void apply(const Mat* in, Mat* inout, std::size_t n) const
  {
    for (std::size_t i = 0; i < n; ++i) inout[i] = mat_mul(in[i], inout[i]);
  }
};

} // namespace

TEST_CASE("an array operator (MPI's user-function convention) with allreduce and reduce equals MPI", "[mpi][allreduce][reduce]")
{
  const NativeMatProduct native;
  const auto red = make_reduction<Mat>("matrix product", mat_mul, native.type(), native.op(), true);
  mpi::Endpoint ep = or_abort([] { return mpi::Endpoint(MPI_COMM_WORLD); });
  const std::size_t p = ep.size(), me = ep.rank(), root = p - 1;
  for (std::size_t n : {1, 7, 10000}) {
    INFO("n = " << n << ", p = " << p);
    const auto send = red.contribution(me, n);
    std::vector<Mat> want(n, poison<Mat>()), want_root(n, poison<Mat>());
    MPI_Allreduce(send.data(), want.data(), static_cast<int>(n), native.type(), native.op(), MPI_COMM_WORLD);
    MPI_Reduce(send.data(), want_root.data(), static_cast<int>(n), native.type(), native.op(), static_cast<int>(root),
               MPI_COMM_WORLD);
    Failures failures;
    failures.expect(want == red.fold(p - 1, n), "MPI_Allreduce itself");
    std::size_t ran = for_each_algorithm_and_topology<Collective::allreduce, false>(
      p, [&](const auto& topo, auto alg, const std::string& where) {
        std::vector<Mat> got(n, poison<Mat>());
        or_abort([&] {
          Comm<std::remove_cvref_t<decltype(topo)>> comm{ep, topo};
          call_with(allreduce, alg, comm, send, got, MatMulArray{});
        });
        failures.expect(got == want, "allreduce(" + name_of(alg) + ") on " + where);
      });
    ran += for_each_algorithm_and_topology<Collective::reduce, false>(
      p, [&](const auto& topo, auto alg, const std::string& where) {
        std::vector<Mat> got(n, poison<Mat>());
        or_abort([&] {
          Comm<std::remove_cvref_t<decltype(topo)>> comm{ep, topo};
          call_with(reduce, alg, comm, send, got, MatMulArray{}, root);
        });
        failures.expect(got == (me == root ? want_root : std::vector<Mat>(n, poison<Mat>())),
                        "reduce(" + name_of(alg) + ") on " + where);
      });
    failures.expect(ran >= 4, "only " + std::to_string(ran) + " (topology, algorithm) pairs ran");
    CAPTURE(failures.names());
    CHECK(failures.names().empty());
  }
}
