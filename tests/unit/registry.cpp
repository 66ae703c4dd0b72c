// The registry of algorithms (algorithm/algorithm.hpp): every collective's list, the fit
// of each algorithm by type (the requirement concepts, so that a call naming an algorithm
// that cannot fit a static topology does not compile) and by value (fits, unfit_reason,
// fitting_algorithms), and selection (select, with_selected) picking only algorithms
// that fit. The lists are read from algorithms<C> and all_collectives, never restated,
// so a new algorithm or collective is covered without touching this file. The
// `requires` checks below are the passing twins of tests/compile_fail/
// alltoall_pairwise_xor_ring6.cpp, alltoall_dimensional_on_ring.cpp,
// alltoall_dimensional_not_product.cpp, shift_mesh_on_ring.cpp,
// reduce_scatter_ring_noncommutative.cpp and allreduce_ring_in_place.cpp.

#include <catch2/catch.hpp>

#include "../support/markdown.hpp"

#include <collectives/algorithm/operators.hpp>
#include <collectives/collective/allreduce.hpp>
#include <collectives/collective/alltoall.hpp>
#include <collectives/collective/reduce_scatter.hpp>
#include <collectives/collective/shift.hpp>
#include <collectives/cost.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/topology.hpp>
#include <collectives/transport/concepts.hpp>

#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

using namespace collectives;
namespace hana = boost::hana;

namespace {

/// An endpoint that only has the types a call needs to compile (nothing runs).
struct TypeOnlyEndpoint {
  std::size_t p = 1;
  std::size_t rank() const { return 0; }
  std::size_t size() const { return p; }
  void exchange(std::span<const SendRequest>, std::span<const RecvRequest>) {}
};
static_assert(endpoint<TypeOnlyEndpoint>);

template <class Topo>
using Comm = Communicator<TypeOnlyEndpoint, Topo>;
using Vec = std::vector<int>;
// A plain lambda is not known to commute; commutative(add) is.
inline constexpr auto add = [](const int& a, const int& b) { return a + b; };
using Add = std::remove_const_t<decltype(add)>;
using CommutativeAdd = decltype(commutative(add));

// ---------------------------------------------------------------------------------------
// Naming an algorithm: the call is constrained on the topology's type, the operator and
// in-place use. Each `false` here is a compile error in tests/compile_fail/.
// ---------------------------------------------------------------------------------------

template <class Topo, class Alg>
constexpr bool alltoall_names = requires(Comm<Topo>& comm, const Vec& s, Vec& r) { alltoall(comm, s, r, Alg{}); };

// pairwise_xor needs p = 2^d (power_of_two_ranks).
static_assert(!alltoall_names<Ring<5>, alltoall_algorithm::PairwiseXor>);
static_assert(!alltoall_names<Ring<6>, alltoall_algorithm::PairwiseXor>);
static_assert(alltoall_names<Ring<8>, alltoall_algorithm::PairwiseXor>);
static_assert(alltoall_names<Ring<>, alltoall_algorithm::PairwiseXor>); // decided at run time
static_assert(!power_of_two_ranks<alltoall_algorithm::PairwiseXor, Ring<5>>);
static_assert(power_of_two_ranks<alltoall_algorithm::PairwiseXor, Ring<8>>);
// The same with the tag object, as a user writes it (a requires-expression is false for
// an invalid call only in a template: hence the variable templates).
template <class Topo>
constexpr bool names_pairwise_xor = requires(Comm<Topo>& comm, const Vec& s, Vec& r) {
  alltoall(comm, s, r, alltoall_algorithm::pairwise_xor);
};
static_assert(!names_pairwise_xor<Ring<5>>);
static_assert(names_pairwise_xor<Ring<8>>);
// An algorithm without needs, and the default, are always allowed.
static_assert(alltoall_names<Ring<5>, alltoall_algorithm::Pairwise>);
static_assert(alltoall_names<Ring<5>, Automatic>);
// The dimensional alltoall needs at least two dimensions (two_or_more_dimensions): a
// ring's type fixes one.
using Dimensional = std::remove_const_t<decltype(alltoall_algorithm::dimensional)>;
static_assert(!alltoall_names<Ring<8>, Dimensional>);
static_assert(!two_or_more_dimensions<Dimensional, Ring<8>>);
static_assert(alltoall_names<Mesh<2, 4>, Dimensional>);
// ... and a product of rings (product_of_rings): a fully connected network has no rings.
static_assert(!alltoall_names<FullyConnected<8>, Dimensional>);
static_assert(!product_of_rings<Dimensional, FullyConnected<8>>);
static_assert(alltoall_names<FullyConnected<8>, alltoall_algorithm::PairwiseXor>);
static_assert(alltoall_names<Hypercube<3>, Dimensional>);
// The mesh shift needs a type with two dimensions (two_dimensional_mesh).
using ShiftMesh = std::remove_const_t<decltype(shift_algorithm::mesh)>;
template <class Topo>
constexpr bool names_shift_mesh = requires(Comm<Topo>& comm, const Vec& s, Vec& r) { shift(comm, s, r, 1, ShiftMesh{}); };
static_assert(!names_shift_mesh<Ring<8>>);
static_assert(names_shift_mesh<Mesh<2, 4>>);
static_assert(!two_dimensional_mesh<ShiftMesh, Ring<8>>);
// An algorithm from another collective's list is not an algorithm of this one.
static_assert(!alltoall_names<Ring<8>, std::remove_const_t<decltype(allgather_algorithm::ring)>>);

// The ring reduce-scatter reorders the combination (commutative_operator_if_needed).
using RsRing = std::remove_const_t<decltype(reduce_scatter_algorithm::ring)>;
template <class Op>
constexpr bool rs_ring_with = requires(Comm<Ring<4>>& comm, const Vec& s, Vec& r, Op op) {
  reduce_scatter(comm, s, r, op, RsRing{});
};
static_assert(!rs_ring_with<Add>);
static_assert(rs_ring_with<CommutativeAdd>);
static_assert(!commutative_operator_if_needed<RsRing, false>);
static_assert(commutative_operator_if_needed<RsRing, true>);
static_assert(commutative_operator_if_needed<std::remove_const_t<decltype(reduce_scatter_algorithm::pairwise)>, false>);

// The ring all-reduce cannot run in place (in_place_if_supported), with any operator.
using ArRing = std::remove_const_t<decltype(allreduce_algorithm::ring)>;
using ArDoubling = std::remove_const_t<decltype(allreduce_algorithm::recursive_doubling)>;
template <class Alg>
constexpr bool allreduce_in_place_names = requires(Comm<Ring<4>>& comm, Vec& buf, CommutativeAdd op) {
  allreduce(comm, buf, op, Alg{});
};
template <class Alg>
constexpr bool allreduce_apart_names = requires(Comm<Ring<4>>& comm, const Vec& s, Vec& r, CommutativeAdd op) {
  allreduce(comm, s, r, op, Alg{});
};
static_assert(!allreduce_in_place_names<ArRing>);
static_assert(allreduce_apart_names<ArRing>);
static_assert(allreduce_in_place_names<ArDoubling>);
static_assert(!in_place_if_supported<ArRing, true>);
static_assert(in_place_if_supported<ArRing, false>);

// ---------------------------------------------------------------------------------------
// Selection at compile time on a static topology: the pick is an algorithm that fits.
// ---------------------------------------------------------------------------------------

constexpr CostModel latency_model{.t_s = 1, .t_w = 1e-3};
constexpr CostModel bandwidth_model{.t_s = 0, .t_w = 1};

template <Collective C, class Topo>
constexpr bool selects_a_fitting_algorithm(const Topo& topo, const CostModel& model, const Problem& problem)
{
  const Selection pick = select<C>(topo, model, problem);
  return pick.found() && pick.candidates >= 1 && fitting_algorithms<C>(topo, problem).contains(pick.name) &&
         pick.candidates == fitting_algorithms<C>(topo, problem).size();
}
static_assert(selects_a_fitting_algorithm<Collective::alltoall>(Ring<8>{}, latency_model, Problem{1}));
static_assert(selects_a_fitting_algorithm<Collective::alltoall>(Ring<8>{}, bandwidth_model, Problem{64}));
static_assert(selects_a_fitting_algorithm<Collective::allreduce>(Ring<8>{}, bandwidth_model, Problem{64}));
static_assert(selects_a_fitting_algorithm<Collective::broadcast>(Ring<8>{}, latency_model, Problem{16, 3}));
static_assert(selects_a_fitting_algorithm<Collective::reduce_scatter>(Ring<8>{}, bandwidth_model, Problem{64, 0, 1, false}));
// Short blocks on a ring of 8: Bruck's log p start-ups beat p - 1.
static_assert(select<Collective::alltoall>(Ring<8>{}, latency_model, Problem{1}).name == "bruck");
// A non-commutative operator never gets the ring reduce-scatter; in place never the ring
// all-reduce, whose estimate wins for long vectors otherwise.
static_assert(select<Collective::reduce_scatter>(Ring<8>{}, bandwidth_model, Problem{64, 0, 1, false}).name != "ring");
static_assert(select<Collective::allreduce>(Ring<8>{}, bandwidth_model, Problem{1 << 16}).name == "ring");
static_assert(select<Collective::allreduce>(Ring<8>{}, bandwidth_model, Problem{.m = 1 << 16, .in_place = true}).name !=
              "ring");
// At run time a selection on a static torus or hypercube runs on its all-dynamic twin (the
// same network, so the same pick): Ring<4>, Ring<6>, Ring<8> and Ring<> share one list and
// so one instantiation of the selection; what the static type rules out does not compete.
using AlltoallList = std::remove_const_t<decltype(algorithms<Collective::alltoall>)>;
static_assert(std::is_same_v<decltype(detail::default_candidates<Collective::alltoall, Ring<4>>()),
                             decltype(detail::default_candidates<Collective::alltoall, Ring<>>())>);
static_assert(std::is_same_v<decltype(detail::default_candidates<Collective::alltoall, Ring<6>>()),
                             decltype(detail::default_candidates<Collective::alltoall, Ring<8>>())>);
static_assert(std::is_same_v<decltype(detail::default_candidates<Collective::allreduce, Hypercube<3>, false, true>()),
                             decltype(detail::default_candidates<Collective::allreduce, Hypercube<>, false, true>())>);
static_assert(std::is_same_v<detail::RunTimeSelection<Ring<8>, AlltoallList>::type, Ring<>>);
static_assert(std::is_same_v<detail::RunTimeSelection<Mesh<2, 3>, AlltoallList>::type, Mesh<>>);
static_assert(std::is_same_v<detail::RunTimeSelection<Ring<>, AlltoallList>::type, Ring<>>);
static_assert(detail::RunTimeSelection<Ring<>, AlltoallList>::allowed == ~std::uint64_t{0});
// pairwise_xor: allowed on Ring<8> and not on Ring<6>, by type; Ring<6> allows nothing
// Ring<8> does not.
constexpr std::size_t pairwise_xor_at = [] {
  std::size_t at = 0, found = 0;
  hana::for_each(algorithms<Collective::alltoall>, [&](auto a) {
    if (std::string_view(decltype(a)::name) == "pairwise_xor") found = at;
    ++at;
  });
  return found;
}();
static_assert(((detail::RunTimeSelection<Ring<8>, AlltoallList>::allowed >> pairwise_xor_at) & 1) == 1);
static_assert(((detail::RunTimeSelection<Ring<6>, AlltoallList>::allowed >> pairwise_xor_at) & 1) == 0);
static_assert((detail::RunTimeSelection<Ring<6>, AlltoallList>::allowed &
               ~detail::RunTimeSelection<Ring<8>, AlltoallList>::allowed) == 0);
// fitting_algorithms is a constant expression on a static topology.
static_assert(fitting_algorithms<Collective::alltoall>(Ring<8>{}).contains("pairwise_xor"));
static_assert(!fitting_algorithms<Collective::alltoall>(Ring<5>{}).contains("pairwise_xor"));
static_assert(fitting_algorithms<Collective::alltoall>(Ring<5>{}).contains("pairwise"));

// ---------------------------------------------------------------------------------------
// Helpers for the run-time checks over every collective.
// ---------------------------------------------------------------------------------------

/// f(std::integral_constant<Collective, C>) for every C of all_collectives.
template <class F, std::size_t... I>
void for_each_collective(F&& f, std::index_sequence<I...>)
{
  (f(std::integral_constant<Collective, all_collectives[I]>{}), ...);
}
template <class F>
void for_each_collective(F&& f)
{
  for_each_collective(f, std::make_index_sequence<all_collectives.size()>{});
}

/// Whether `needs` allow topology `topo` (of type T) and `problem`, read from the needs
/// alone: the oracle the registry's fits() is checked against.
template <class T>
bool needs_allow(const Needs& n, const T& topo, const Problem& problem)
{
  const std::size_t p = topo.size();
  const bool pow2 = p != 0 && (p & (p - 1)) == 0;
  if (n.power_of_two && !pow2) return false;
  if (n.max_ranks != 0 && p > n.max_ranks) return false;
  if (n.product || n.two_or_more_dims || n.two_dims) {
    if constexpr (!product_topology<T>) return false;
    else {
      if (n.two_or_more_dims && topo.ndims() < 2) return false;
      if (n.two_dims && detail::static_dims<T>() != 2) return false;
    }
  }
  if (n.commutative && !problem.commutative) return false;
  if (n.out_of_place && problem.in_place) return false;
  return true;
}

/// The problems the fit is checked for: each combination of commutative and in place.
std::vector<Problem> problems()
{
  std::vector<Problem> out;
  for (bool commutative : {true, false})
    for (bool in_place : {false, true}) out.push_back(Problem{.m = 8, .commutative = commutative, .in_place = in_place});
  return out;
}

/// One algorithm's fit for one problem, as check_fit reads it (checked by a function that
/// is not a template: Catch2's macros in the per-algorithm lambda were most of this TU).
struct FitFacts {
  std::string_view why;       // unfit_reason
  bool ok = false;            // fits
  bool needs_allow = false;   // what the algorithm's needs say
  bool type_fits = false;     // fits_topology_type
  bool static_size = false;   // the topology's size is in its type
};

void check_fit_facts(const FitFacts& f, const std::string& label, Collective c, std::string_view algorithm,
                     const Problem& problem)
{
  INFO(label << " " << collective_name(c) << "(" << algorithm << ") commutative " << problem.commutative
             << " in place " << problem.in_place << ": " << (f.ok ? "fits" : f.why));
  CHECK(f.ok == f.why.empty());
  CHECK(f.ok == f.needs_allow);
  // What the type rules out never fits by value, whatever the size.
  if (!f.type_fits) CHECK_FALSE(f.ok);
  // A static topology's type decides the topology's part of the fit alone.
  if (f.static_size && problem.commutative && !problem.in_place) CHECK(f.ok == f.type_fits);
}

/// Checks fits / unfit_reason / fitting_algorithms of every algorithm of every
/// collective on `topo` against the algorithms' needs; returns how many (collective,
/// algorithm) pairs fit with the default problem.
template <class T>
std::size_t check_fit(const T& topo, const std::string& label)
{
  std::size_t fitting = 0;
  for_each_collective([&](auto c) {
    constexpr Collective C = decltype(c)::value;
    for (const Problem& problem : problems()) {
      const auto listed = fitting_algorithms<C>(topo, problem);
      std::vector<std::string_view> expected;
      hana::for_each(algorithms<C>, [&](auto a) {
        using A = decltype(a);
        const FitFacts f{unfit_reason(a, topo, problem), fits(a, topo, problem), needs_allow(A::needs, topo, problem),
                         fits_topology_type<A, T>, static_size_v<T> != dynamic_extent};
        check_fit_facts(f, label, C, A::name, problem);
        if (f.ok) expected.push_back(A::name);
        if (f.ok && problem.commutative && !problem.in_place) ++fitting;
      });
      INFO(label << " " << collective_name(C));
      CHECK(std::vector<std::string_view>(listed.begin(), listed.end()) == expected);
    }
  });
  return fitting;
}

} // namespace

TEST_CASE("registry: every collective's list", "[registry]")
{
  std::size_t collectives = 0;
  for_each_collective([&](auto c) {
    constexpr Collective C = decltype(c)::value;
    ++collectives;
    constexpr auto names = algorithm_names<C>();
    INFO(collective_name(C));
    static_assert(names.size() >= 1, "every collective has an algorithm");
    CHECK(names.size() == static_cast<std::size_t>(hana::length(algorithms<C>)));
    const std::set<std::string_view> unique(names.begin(), names.end());
    CHECK(unique.size() == names.size());
    std::size_t i = 0;
    hana::for_each(algorithms<C>, [&](auto a) {
      using A = decltype(a);
      static_assert(algorithm_of<A, C>, "the list of C holds algorithms of C");
      CHECK(names[i++] == std::string_view(A::name));
      CHECK_FALSE(std::string_view(A::name).empty());
      CHECK(std::string_view(A::name) != "default");
      CHECK(A::pieces(8) >= 1);
    });
  });
  CHECK(collectives == all_collectives.size());
}

TEST_CASE("registry: README's table of algorithms lists each collective's list, in its order", "[registry][docs]")
{
  // The table under "## Algorithms": | `collective`[, `collective`] | `alg` (note), ... |.
  // A cell's names are its backticked words outside parentheses (a note may name other
  // things in backticks); they must be the list's, in its order.
  std::ifstream readme(COLLECTIVES_README);
  REQUIRE(readme.good());
  std::set<Collective> seen;
  bool in_section = false;
  for (std::string line; std::getline(readme, line);) {
    if (line.rfind("## ", 0) == 0 || line.rfind("### ", 0) == 0) {
      in_section = line == "## Algorithms";
      continue;
    }
    if (!in_section || line.rfind("| `", 0) != 0) continue;
    const std::vector<std::string> cells = testing::table_cells(line);
    REQUIRE(cells.size() == 2);
    for (const std::string& name : testing::ticked_names(cells[0]))
      for_each_collective([&](auto c) {
        constexpr Collective C = decltype(c)::value;
        if (collective_name(C) != name) return;
        INFO("README's row of " << name << ": " << cells[1]);
        constexpr auto names = algorithm_names<C>();
        CHECK(testing::ticked_names(cells[1]) == std::vector<std::string>(names.begin(), names.end()));
        seen.insert(C);
      });
  }
  CHECK(seen.size() == all_collectives.size());
}

TEST_CASE("registry: fits, unfit_reason and fitting_algorithms follow the needs", "[registry]")
{
  CHECK(check_fit(Ring<5>{}, "Ring<5>") > 0);
  CHECK(check_fit(Ring<8>{}, "Ring<8>") > 0);
  CHECK(check_fit(Mesh<2, 3>{}, "Mesh<2, 3>") > 0);
  CHECK(check_fit(Hypercube<3>{}, "Hypercube<3>") > 0);
  CHECK(check_fit(Mesh<2, 4>{}, "Mesh<2, 4>") > 0);
  CHECK(check_fit(Ring<64>{}, "Ring<64>") > 0);
  CHECK(check_fit(Ring<65>{}, "Ring<65>") > 0); // (the linear alltoall does not fit: 64 ranks at most)
  CHECK(check_fit(Ring<>{65}, "Ring<>{65}") == check_fit(Ring<65>{}, "Ring<65>"));
  // The same sizes with run-time extents agree with the static ones.
  CHECK(check_fit(Ring<>{5}, "Ring<>{5}") == check_fit(Ring<5>{}, "Ring<5>"));
  CHECK(check_fit(Ring<>{8}, "Ring<>{8}") == check_fit(Ring<8>{}, "Ring<8>"));
  CHECK(check_fit(Mesh<>{2, 3}, "Mesh<>{2, 3}") == check_fit(Mesh<2, 3>{}, "Mesh<2, 3>"));
  CHECK(check_fit(Hypercube<>::of_dims(3), "Hypercube<>(3)") == check_fit(Hypercube<3>{}, "Hypercube<3>"));
}

TEST_CASE("registry: every algorithm fits some topology", "[registry]")
{
  const Problem problem{.m = 8};
  for_each_collective([&](auto c) {
    constexpr Collective C = decltype(c)::value;
    hana::for_each(algorithms<C>, [&](auto a) {
      INFO(collective_name(C) << "(" << decltype(a)::name << ")");
      CHECK((fits(a, Ring<8>{}, problem) || fits(a, Mesh<2, 4>{}, problem) || fits(a, Hypercube<3>{}, problem)));
    });
  });
}

TEST_CASE("registry: unfit_reason names the broken requirement", "[registry]")
{
  using alltoall_algorithm::pairwise_xor;
  CHECK(unfit_reason(pairwise_xor, Ring<5>{}) == "needs a power-of-two number of ranks");
  CHECK(unfit_reason(pairwise_xor, Ring<8>{}).empty());
  CHECK(unfit_reason(pairwise_xor, Mesh<2, 3>{}) == "needs a power-of-two number of ranks");
  CHECK(unfit_reason(pairwise_xor, Hypercube<3>{}).empty());
  CHECK(unfit_reason(alltoall_algorithm::dimensional, Ring<8>{}) == "needs a topology of at least two dimensions");
  CHECK(unfit_reason(alltoall_algorithm::dimensional, Ring<>{8}) == "needs a topology of at least two dimensions");
  CHECK(unfit_reason(alltoall_algorithm::dimensional, Mesh<2, 3>{}).empty());
  CHECK(unfit_reason(shift_algorithm::mesh, Hypercube<3>{}) == "needs a 2-D mesh or torus (Mesh<R, C> or Torus<R, C>)");
  CHECK(unfit_reason(shift_algorithm::mesh, Mesh<2, 3>{}).empty());
  CHECK(unfit_reason(reduce_scatter_algorithm::ring, Ring<5>{}, Problem{.commutative = false}).starts_with(
    "needs a commutative operator"));
  CHECK(unfit_reason(allreduce_algorithm::ring, Ring<5>{}, Problem{.in_place = true}) == "does not work in place");
  // The linear alltoall's one step of p - 1 messages per rank: at most 64 ranks
  // (ranks_within_limit), by type and by value, and its error says so.
  static_assert(ranks_within_limit<alltoall_algorithm::Linear, Ring<64>>);
  static_assert(!ranks_within_limit<alltoall_algorithm::Linear, Ring<65>>);
  static_assert(!fits_topology_type<alltoallv_algorithm::Linear, Hypercube<7>>);
  static_assert(ranks_within_limit<alltoall_algorithm::Linear, Ring<>>); // decided by value
  CHECK(unfit_reason(alltoall_algorithm::linear, Ring<64>{}).empty());
  CHECK(unfit_reason(alltoall_algorithm::linear, Ring<>{65}) == "needs at most 64 ranks");
  CHECK(unfit_reason(alltoallv_algorithm::linear, Mesh<>{8, 9}) == "needs at most 64 ranks");
  CHECK_THROWS_WITH(detail::require_fits(alltoall_algorithm::linear, Ring<>{100}, Problem{}),
                    "collectives::alltoall(linear): needs at most 64 ranks (p = 100)");
  CHECK(fitting_algorithms<Collective::alltoall>(Ring<>{64}).contains("linear"));
  CHECK_FALSE(fitting_algorithms<Collective::alltoall>(Ring<>{65}).contains("linear"));
  // fitting_algorithms on the four topologies of the brief, in list order.
  const auto r5 = fitting_algorithms<Collective::alltoall>(Ring<5>{});
  CHECK_FALSE(r5.contains("pairwise_xor"));
  CHECK_FALSE(r5.contains("dimensional"));
  CHECK(r5.contains("pairwise"));
  CHECK(r5.contains("bruck"));
  const auto r8 = fitting_algorithms<Collective::alltoall>(Ring<8>{});
  CHECK(r8.contains("pairwise_xor"));
  CHECK(r8.contains("standard_exchange"));
  CHECK_FALSE(r8.contains("dimensional"));
  for (std::string_view name : r5) CHECK(r8.contains(name)); // a power of two only adds
  const auto m23 = fitting_algorithms<Collective::alltoall>(Mesh<2, 3>{});
  CHECK(m23.contains("dimensional"));
  CHECK_FALSE(m23.contains("pairwise_xor"));
  const auto q3 = fitting_algorithms<Collective::alltoall>(Hypercube<3>{});
  CHECK(q3.size() == static_cast<std::size_t>(hana::length(algorithms<Collective::alltoall>)));
  // A run-time topology that does not fit: std::invalid_argument naming call and reason.
  try {
    (void)predict(pairwise_xor, Ring<>{6}, latency_model, Problem{1});
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "collectives::alltoall(pairwise_xor): needs a power-of-two number of ranks (p = 6)");
  }
}

namespace {

/// What check_selection_fits found for one problem (checked here, not in the template).
void check_selection_facts(const std::string& context, const Selection& pick, bool listed, const Selection& handed,
                           std::string_view at_handed_index, const std::string& ran, bool ran_fits)
{
  INFO(context << ": " << pick.name);
  REQUIRE(pick.found());
  CHECK(listed);
  CHECK(handed.name == pick.name);
  CHECK(handed.time == pick.time);
  CHECK(at_handed_index == pick.name); // with_selected's index: among the algorithms T's type allows
  CHECK(ran == pick.name);
  CHECK(ran_fits);
}

/// For every collective and several models, sizes and problems: select() picks an
/// algorithm that fits, and with_selected() hands over that very algorithm.
template <class T>
void check_selection_fits(const T& topo, const std::string& label)
{
  const CostModel models[] = {latency_model, bandwidth_model, CostModel{1e-6, 1e-9, 5e-8, 1e-10}};
  for_each_collective([&](auto c) {
    constexpr Collective C = decltype(c)::value;
    for (const CostModel& model : models)
      for (double m : {1.0, 1e4})
        for (Problem problem : problems()) {
          problem.m = m;
          problem.root = topo.size() - 1;
          // with_selected instantiates only what a commutative, out-of-place call may
          // name (its default); the others are for select() alone.
          const Selection pick = select<C>(topo, model, problem);
          const bool listed = pick.found() && fitting_algorithms<C>(topo, problem).contains(pick.name);
          std::string ran;
          bool ran_fits = false;
          const Selection handed = pick.found() ? with_selected<C>(topo, model, problem, [&](auto alg) {
            ran = decltype(alg)::name;
            ran_fits = fits(alg, topo, problem);
          })
                                                : pick;
          std::string_view at_handed_index;
          if (handed.found())
            visit_algorithm(detail::candidates_for<C, T>(), handed.index,
                            [&](auto alg) { at_handed_index = decltype(alg)::name; });
          check_selection_facts(label + " " + std::string(collective_name(C)) + " m = " + std::to_string(m) +
                                  " commutative " + std::to_string(problem.commutative) + " in place " +
                                  std::to_string(problem.in_place),
                                pick, listed, handed, at_handed_index, ran, ran_fits);
        }
  });
}

} // namespace

TEST_CASE("registry: select and with_selected pick an algorithm that fits", "[registry][select]")
{
  check_selection_fits(Ring<5>{}, "Ring<5>");
  check_selection_fits(Ring<8>{}, "Ring<8>");
  check_selection_fits(Mesh<2, 3>{}, "Mesh<2, 3>");
  check_selection_fits(Hypercube<3>{}, "Hypercube<3>");
  check_selection_fits(Ring<>{6}, "Ring<>{6}");
  check_selection_fits(Mesh<>{2, 4}, "Mesh<>{2, 4}");
}
