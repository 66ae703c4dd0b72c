#pragma once
// What an algorithm is. Each algorithm is one empty type that says everything about
// itself, beside its schedule (algorithm/<collective>/<name>.hpp):
//
//   static constexpr Collective collective;       which collective it implements
//   static constexpr const char* name;            its name ("pairwise_xor")
//   static constexpr Needs needs;                 what it asks of the topology and the call
//   static constexpr auto schedule(topo, problem) the schedule that runs (and is costed,
//                                                 verified and drawn)
//   static constexpr std::size_t pieces(p)        how many pieces the collective's message
//                                                 is cut into (long-message algorithms)
//   static constexpr bool output_everywhere       needs room for the whole result on every
//                                                 rank (rooted reductions by reduce-scatter)
//   static constexpr bool input_may_alias_output  runs correctly with the input and the
//                                                 output the same memory (it never reads an
//                                                 input block after writing the output): an
//                                                 in-place call then needs no copy
//
// (AlgorithmBase<C> gives the collective and the defaults: no needs, one piece, output
// at the root only, input and output apart.)
// Each collective keeps one list of its algorithms, algorithms<Collective::X>, in
// algorithm/<collective>.hpp; front ends, selection, the tools, calibration, the tests
// and the benchmarks all read it. Adding an algorithm is its file plus one line there.
//
// Whether an algorithm fits is decided from `needs` alone: by type where the topology's
// type settles it (the concepts below, so naming an algorithm that cannot fit a static
// topology is a compile error naming the algorithm and the broken requirement), and by
// value otherwise (fits(), unfit_reason()).

#include <collectives/algorithm/collective.hpp>
#include <collectives/detail/bits.hpp>
#include <collectives/detail/config.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/topology/concepts.hpp>

#include <boost/hana/at.hpp>
#include <boost/hana/filter.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/integral_constant.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace collectives {

/// What an algorithm asks of the topology and of the call.
struct Needs {
  bool power_of_two = false;     ///< p = 2^d
  bool product = false;          ///< a product of rings (Mesh, Torus, Hypercube, Ring)
  bool two_or_more_dims = false; ///< a product of at least two rings
  bool two_dims = false;         ///< a topology whose type fixes two dimensions (Mesh<R, C>)
  bool commutative = false;      ///< an operator that may be reordered
  bool out_of_place = false;     ///< separate send and receive buffers
  std::size_t max_ranks = 0;     ///< at most this many ranks (0: any number)
};

/// What an algorithm of collective C inherits: its collective, and the defaults of the
/// other facts (no needs, the message in one piece, the result written at the root only).
template <Collective C>
struct AlgorithmBase {
  static constexpr Collective collective = C;
  static constexpr Needs needs{};
  static constexpr std::size_t pieces(std::size_t) { return 1; }
  static constexpr bool output_everywhere = false;
  static constexpr bool input_may_alias_output = false;
};

/// An algorithm type (see the top of this header).
template <class A>
concept algorithm = std::is_empty_v<A> && std::default_initializable<A> && requires(std::size_t p) {
  { A::collective } -> std::convertible_to<Collective>;
  { A::name } -> std::convertible_to<std::string_view>;
  { A::needs } -> std::convertible_to<Needs>;
  { A::pieces(p) } -> std::convertible_to<std::size_t>;
  { A::output_everywhere } -> std::convertible_to<bool>;
  { A::input_may_alias_output } -> std::convertible_to<bool>;
};

/// An algorithm of collective C.
template <class A, Collective C>
concept algorithm_of = algorithm<A> && (A::collective == C);

/// The tag a collective takes to pick its algorithm by cost: `alltoall(comm, s, r)` is
/// `alltoall(comm, s, r, automatic)`.
struct Automatic {
  static constexpr const char* name = "default";
  /// None: a default call considers only the algorithms that fit (what `selectable`
  /// checks of a named algorithm holds for it).
  static constexpr Needs needs{};
};
inline constexpr Automatic automatic{};

/// The list of collective C's algorithms: specialised in algorithm/<collective>.hpp with
/// `static constexpr auto value = boost::hana::make_tuple(tags...)`, in order of
/// preference on a cost tie.
template <Collective C>
struct algorithm_list; // undefined: include the collective's algorithm header

/// Collective C's algorithms, a boost::hana::tuple of tags.
template <Collective C>
inline constexpr auto algorithms = algorithm_list<C>::value;

namespace detail {
template <class... A>
std::tuple<A...> as_std_tuple(const boost::hana::tuple<A...>&);
} // namespace detail

/// Collective C's algorithm types as a std::tuple (for Catch2's TEMPLATE_LIST_TEST_CASE).
template <Collective C>
using algorithm_types = decltype(detail::as_std_tuple(algorithms<C>));

/// The names of collective C's algorithms, in list order.
template <Collective C>
constexpr auto algorithm_names()
{
  return boost::hana::unpack(algorithms<C>, [](auto... a) {
    return std::array<std::string_view, sizeof...(a)>{std::string_view(decltype(a)::name)...};
  });
}

// ---------------------------------------------------------------------------------------
// Fit by type. Each concept is one requirement, named for what it asks, so that a call
// naming an algorithm that cannot fit a static topology fails to compile with the
// algorithm's type and the broken requirement in the diagnostic.
// ---------------------------------------------------------------------------------------

namespace detail {

/// Number of dimensions fixed by T's type, or dynamic_extent.
template <class T>
constexpr std::size_t static_dims()
{
  if constexpr (requires { T::static_dims; }) return T::static_dims;
  else if constexpr (requires { typename std::integral_constant<std::size_t, T::ndims()>; }) return T::ndims();
  else return dynamic_extent;
}

/// A product topology whose type fixes two dimensions (Mesh<R, C>, Torus<R, C>), numbered
/// row-major: dimension 0 the rows, dimension 1 (stride 1) the columns.
template <class T>
concept two_dim_torus = product_topology<T> && (static_dims<T>() == 2);

} // namespace detail

/// Requirement: a power-of-two number of ranks, where the algorithm needs it.
template <class A, class T>
concept power_of_two_ranks = !A::needs.power_of_two || static_size_v<T> == dynamic_extent ||
                             detail::is_power_of_two(static_size_v<T>);

/// Requirement: a product of rings (mesh, torus, hypercube), where the algorithm needs it.
template <class A, class T>
concept product_of_rings = !(A::needs.product || A::needs.two_or_more_dims || A::needs.two_dims) ||
                           product_topology<T>;

/// Requirement: at least two dimensions, where the algorithm needs them.
template <class A, class T>
concept two_or_more_dimensions = !A::needs.two_or_more_dims || detail::static_dims<T>() == dynamic_extent ||
                                 detail::static_dims<T>() >= 2;

/// Requirement: a topology whose type fixes two dimensions (Mesh<R, C>), where needed.
template <class A, class T>
concept two_dimensional_mesh = !A::needs.two_dims || detail::two_dim_torus<T>;

/// Requirement: at most A::needs.max_ranks ranks, where the algorithm has a limit.
template <class A, class T>
concept ranks_within_limit = A::needs.max_ranks == 0 || static_size_v<T> == dynamic_extent ||
                             static_size_v<T> <= A::needs.max_ranks;

/// What A needs of topology type T, each requirement of the list above (true for
/// Automatic, which needs nothing).
template <class A, class T>
concept topology_needs_met = power_of_two_ranks<A, T> && product_of_rings<A, T> && two_or_more_dimensions<A, T> &&
                             two_dimensional_mesh<A, T> && ranks_within_limit<A, T>;

/// Nothing in topology type T rules algorithm A out.
template <class A, class T>
concept fits_topology_type = algorithm<A> && topology_needs_met<A, T>;

namespace detail {
/// call_candidate_at's call of f with candidate I, when T is void or its type allows the
/// candidate (f is not instantiated for one it rules out): whether it called.
template <class T, std::size_t I, class Tuple, class F>
constexpr bool call_candidate_if_allowed(const Tuple& candidates, F& f)
{
  using Tag = std::remove_cvref_t<decltype(boost::hana::at_c<I>(candidates))>;
  if constexpr (std::is_void_v<T> || fits_topology_type<Tag, T>) {
    f(boost::hana::at_c<I>(candidates));
    return true;
  } else {
    return false;
  }
}

/// f(tag) for the candidate at `index` of `candidates` when T (a topology type; void: any)
/// allows it: whether f was called. A chain of direct branches that stops at `index`, the
/// one way every caller reaches a candidate by its position: a default call runs it on
/// every call (cost/select.hpp, visit_default_candidate, which measured it against a
/// walk over every position and a table of function pointers).
template <class T, class... A, class F>
constexpr bool call_candidate_at(const boost::hana::tuple<A...>& candidates, std::size_t index, F&& f)
{
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ((index == I && call_candidate_if_allowed<T, I>(candidates, f)) || ...);
  }(std::index_sequence_for<A...>{});
}
} // namespace detail

/// Calls f(tag) with the algorithm at `index` of `candidates` (a hana::tuple of tags, as
/// select() indexes them). Throws std::invalid_argument for an index out of range.
template <class... A, class F>
void visit_algorithm(const boost::hana::tuple<A...>& candidates, std::size_t index, F&& f)
{
  detail::require(detail::call_candidate_at<void>(candidates, index, f),
                  "collectives::visit_algorithm: no candidate at that index");
}

/// Requirement: a commutative operator, where the algorithm reorders the combination.
template <class A, bool Commutative>
concept commutative_operator_if_needed = !A::needs.commutative || Commutative;

/// Requirement: separate send and receive buffers, where the algorithm cannot run in place.
template <class A, bool InPlace>
concept in_place_if_supported = !A::needs.out_of_place || !InPlace;

/// What A needs of the call: its operator and in-place use.
template <class A, bool Commutative, bool InPlace>
concept call_needs_met = commutative_operator_if_needed<A, Commutative> && in_place_if_supported<A, InPlace>;

/// Algorithm A of collective C may be named for a call on topology type T with an
/// operator that is (or is not) known commutative, in place or not.
template <class A, Collective C, class T, bool Commutative = true, bool InPlace = false>
concept algorithm_for = algorithm_of<A, C> && fits_topology_type<A, T> && call_needs_met<A, Commutative, InPlace>;

/// What a front end of collective C accepts as its algorithm argument: Automatic, or an
/// algorithm of C that topology type T, the operator and in-place use allow. (Spelled as
/// one conjunction of the requirements, which Automatic meets, rather than Automatic ||
/// algorithm_for: g++ then names the requirement that failed, where for a disjunction it
/// says only that no operand holds.)
template <class A, Collective C, class T, bool Commutative = true, bool InPlace = false>
concept selectable = (std::same_as<A, Automatic> || algorithm_of<A, C>) && topology_needs_met<A, T> &&
                     call_needs_met<A, Commutative, InPlace>;

// ---------------------------------------------------------------------------------------
// Fit by value.
// ---------------------------------------------------------------------------------------

namespace detail {
/// "needs at most N ranks", spelled at compile time.
struct MaxRanksText {
  char text[48]{};
  std::size_t size = 0;
  constexpr explicit MaxRanksText(std::size_t n)
  {
    for (const char* s = "needs at most "; *s != 0; ++s) text[size++] = *s;
    char digits[24]{};
    std::size_t d = 0;
    do {
      digits[d++] = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n != 0);
    while (d != 0) text[size++] = digits[--d];
    for (const char* s = " ranks"; *s != 0; ++s) text[size++] = *s;
  }
  constexpr std::string_view view() const { return {text, size}; }
};
template <std::size_t N>
inline constexpr MaxRanksText max_ranks_text{N};
} // namespace detail

/// Why algorithm A cannot run on `topo` for `problem`, or an empty view when it can.
template <algorithm A, topology T>
constexpr std::string_view unfit_reason(A, const T& topo, const Problem& problem = {})
{
  constexpr Needs n = A::needs;
  if (n.power_of_two && !detail::is_power_of_two(topo.size())) return "needs a power-of-two number of ranks";
  if (n.max_ranks != 0 && topo.size() > n.max_ranks) return detail::max_ranks_text<n.max_ranks>.view();
  if constexpr (!product_of_rings<A, T>) {
    return "needs a product of rings (a mesh, torus or hypercube)";
  } else if constexpr (!two_dimensional_mesh<A, T>) {
    return "needs a 2-D mesh or torus (Mesh<R, C> or Torus<R, C>)";
  } else {
    if constexpr (product_topology<T>)
      if (n.two_or_more_dims && topo.ndims() < 2) return "needs a topology of at least two dimensions";
    if (n.commutative && !problem.commutative)
      return "needs a commutative operator (wrap it in collectives::commutative(op) or specialise "
             "collectives::op_traits)";
    if (n.out_of_place && problem.in_place) return "does not work in place";
    return {};
  }
}

/// True when algorithm A can run on `topo` for `problem` (size, shape, operator, in place).
/// constexpr: with a static topology it is a constant expression.
template <algorithm A, topology T>
constexpr bool fits(A a, const T& topo, const Problem& problem = {})
{
  return unfit_reason(a, topo, problem).empty();
}

namespace detail {

[[noreturn]] COLLECTIVES_COLD inline void throw_unfit(Collective c, std::string_view alg, std::string_view why, std::size_t p)
{
  throw_invalid({"collectives::", collective_name(c), "(", alg, "): ", why, " (p = ", p, ")"});
}

/// Throws std::invalid_argument "collectives::<collective>(<algorithm>): <reason> (p = n)"
/// unless A fits (a compile error in constant evaluation).
template <algorithm A, topology T>
constexpr void require_fits(A a, const T& topo, const Problem& problem)
{
  const std::string_view why = unfit_reason(a, topo, problem);
  if (!why.empty()) throw_unfit(A::collective, A::name, why, topo.size());
}

/// The algorithms of C that topology type T, the operator's commutativity and in-place
/// use do not rule out: a hana::tuple, filtered at compile time (the others are never
/// instantiated).
template <Collective C, class T, bool Commutative = true, bool InPlace = false>
constexpr auto candidates_for()
{
  return boost::hana::filter(algorithms<C>, [](auto a) {
    return boost::hana::bool_c<algorithm_for<decltype(a), C, T, Commutative, InPlace>>;
  });
}

} // namespace detail

/// The names of collective C's algorithms that fit `topo` and `problem`, in list order.
template <Collective C, topology T>
struct FittingAlgorithms {
  std::array<std::string_view, boost::hana::length(algorithms<C>)> names{};
  std::size_t count = 0;
  constexpr const std::string_view* begin() const { return names.data(); }
  constexpr const std::string_view* end() const { return names.data() + count; }
  constexpr std::size_t size() const { return count; }
  constexpr bool contains(std::string_view n) const
  {
    for (std::size_t i = 0; i < count; ++i)
      if (names[i] == n) return true;
    return false;
  }
};

/// Collective C's algorithms that can run on `topo` for `problem`, e.g.
/// `fitting_algorithms<Collective::alltoall>(Ring<5>{})` names pairwise, ring, ring_two_way,
/// bruck and linear. constexpr with a static topology.
template <Collective C, topology T>
constexpr FittingAlgorithms<C, T> fitting_algorithms(const T& topo, const Problem& problem = {})
{
  FittingAlgorithms<C, T> out;
  boost::hana::for_each(detail::candidates_for<C, T>(), [&](auto a) {
    if (fits(a, topo, problem)) out.names[out.count++] = decltype(a)::name;
  });
  return out;
}

} // namespace collectives
