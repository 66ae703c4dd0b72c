#pragma once
// Choosing an algorithm by its cost. For a collective, a topology, a cost model and a
// problem (message size, root, shift distance, whether the operator commutes), every
// candidate algorithm's schedule is built and estimated (schedule_cost.hpp) and the
// cheapest wins. Candidates are a boost::hana::tuple of the library's algorithm tags
// (alltoall_algorithm::pairwise, rooted_algorithm::binomial, ...):
//
//   constexpr auto pick = select<Collective::alltoall>(Hypercube<3>{}, model, Problem{1024});
//   static_assert(pick.name == "pairwise_xor");                 // at compile time
//   auto pick = select<Collective::alltoall>(Hypercube<>{d}, model, Problem{m});  // at run time
//
// A candidate that cannot run on the topology is skipped: by type when the topology's
// size or shape is static (a power-of-two algorithm on Ring<6> is never instantiated, so
// its static_assert never fires), by value otherwise. Selection is deterministic, so every
// rank of a communicator that selects with the same inputs picks the same algorithm.
// with_cheapest() runs the pick: it calls f(tag) with the selected tag's type. A
// collective called without an algorithm does the same through detail::run_cheapest,
// with the communicator's model, and remembers the pick per problem.
//
// This header is the machinery only; each collective's header says how the cost layer
// builds its algorithms (algorithm_cost specialisations) and lists its candidates
// (algorithm_candidates). <collectives/cost/select.hpp> includes them all.
//
// Boost.Hana is used for the heterogeneous candidate lists only (hana::tuple, fold_left,
// for_each). It is not heavy: its three headers cost ~0.07 s of compile time with g++ 12
// (all of <boost/hana.hpp>: ~0.18 s; the umbrella collectives.hpp: ~1.8 s), and the fold
// instantiates nothing but one lambda per candidate: the estimates dominate.

#include <collectives/algorithm/requirements.hpp>
#include <collectives/algorithm/shift/mesh.hpp> // two_dim_torus
#include <collectives/cost/collective.hpp>
#include <collectives/cost/model.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/execution/communicator.hpp>
#include <collectives/topology/concepts.hpp>

#include <boost/hana/fold_left.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>

#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

namespace collectives {

namespace detail {

/// What an algorithm asks of the topology beyond its size.
enum class Needs : unsigned char {
  nothing,
  power_of_two,   ///< p = 2^d
  product,        ///< a product of rings (mesh, torus, hypercube)
  product_2d,     ///< a product topology of at least two dimensions (dimensional alltoall)
  two_dim_torus,  ///< Mesh<R, C> / Torus<R, C> (the mesh shift)
};

template <class T>
constexpr std::size_t select_static_ndims()
{
  if constexpr (requires { T::static_dims; }) return T::static_dims;
  else if constexpr (requires { typename std::integral_constant<std::size_t, T::ndims()>; }) return T::ndims();
  else return dynamic_extent;
}

/// True when nothing in T's type rules the need out (instantiating is then safe).
template <class T>
constexpr bool type_allows(Needs needs)
{
  switch (needs) {
  case Needs::nothing: return true;
  case Needs::power_of_two: return static_size_v<T> == dynamic_extent || is_power_of_two(static_size_v<T>);
  case Needs::product: return product_topology<T>;
  case Needs::product_2d: {
    if constexpr (product_topology<T>) {
      constexpr std::size_t nd = select_static_ndims<T>();
      return nd == dynamic_extent || nd >= 2;
    } else {
      return false;
    }
  }
  case Needs::two_dim_torus: return two_dim_torus<T>;
  }
  return false;
}

/// True when the topology (value) meets the need.
template <class T>
constexpr bool value_allows(Needs needs, const T& topo)
{
  if (!type_allows<T>(needs)) return false;
  if (needs == Needs::power_of_two) return is_power_of_two(topo.size());
  if constexpr (product_topology<T>)
    if (needs == Needs::product_2d) return topo.ndims() >= 2;
  return true;
}

} // namespace detail

/// How the cost layer runs algorithm `Tag` of collective `C`: what it needs, the schedule
/// the collective's front end builds for it (the same one), and the words per block of
/// that schedule for a problem of m words. Specialised below for every algorithm of the
/// library; specialise it for an algorithm of your own to make it selectable.
template <Collective C, class Tag>
struct algorithm_cost; // undefined: not an algorithm of C

namespace detail {

/// Shared by the specialisations: needs, whether a non-commutative operator is fine,
/// whether the algorithm runs in place, and the block size as m / pieces(p).
template <Needs N, bool AnyOperator = true, bool InPlace = true>
struct CostBase {
  static constexpr Needs needs = N;
  static constexpr bool any_operator = AnyOperator;
  static constexpr bool in_place_ok = InPlace;
  static constexpr double block_words(double m, std::size_t) { return m; }
};

template <Collective C>
concept rooted_collective =
  C == Collective::broadcast || C == Collective::reduce || C == Collective::scatter || C == Collective::gather;

} // namespace detail

/// True when algorithm Tag of collective C is known to the cost layer.
template <Collective C, class Tag>
concept costed_algorithm = requires { algorithm_cost<C, Tag>::needs; };

/// True when nothing in topology type T rules algorithm Tag of C out (so it may be
/// instantiated for T).
template <Collective C, class Tag, class T>
inline constexpr bool fits_type_v = detail::type_allows<T>(algorithm_cost<C, Tag>::needs);

/// True when algorithm Tag of C can run on `topo` for `problem` (size, shape, operator,
/// in place).
template <Collective C, class Tag, topology T>
constexpr bool fits(const T& topo, const Problem& problem)
{
  using A = algorithm_cost<C, Tag>;
  constexpr bool in_place_ok = [] {
    if constexpr (requires { A::in_place_ok; }) return A::in_place_ok;
    else return true;
  }();
  return detail::value_allows(A::needs, topo) && (A::any_operator || problem.commutative) &&
         (in_place_ok || !problem.in_place);
}

/// The estimate of algorithm Tag of C built for topology `topo` (the schedule the front
/// end runs on a communicator over `topo`) and run on `network` (the same size): e.g. a
/// hypercube algorithm mapped onto a ring, or any algorithm on FullyConnected for a
/// transport without links. Requirements: the algorithm fits `topo` (a compile error when
/// the topology's type rules it out, else std::invalid_argument, as is a bad model, m,
/// root, or a network of another size).
template <Collective C, class Tag, topology T, topology N>
constexpr CostReport predict_on(Tag, const T& topo, const N& network, const CostModel& model, const Problem& problem)
{
  using A = algorithm_cost<C, Tag>;
  static_assert(fits_type_v<C, Tag, T>, "collectives::predict: the algorithm does not fit the topology's type");
  detail::require(fits<C, Tag>(topo, problem), "collectives::predict: the algorithm does not fit this topology or operator");
  if constexpr (detail::rooted_collective<C>)
    detail::require(problem.root < topo.size(), "collectives::predict: the root is not a rank of the topology");
  if constexpr (requires { A::estimate_on(topo, network, model, problem); })
    return A::estimate_on(topo, network, model, problem);
  else
    return estimate(A::schedule(topo, problem), network, model, A::block_words(problem.m, topo.size()));
}

/// The estimate of algorithm Tag of C on `topo` (see predict_on).
template <Collective C, class Tag, topology T>
constexpr CostReport predict(Tag tag, const T& topo, const CostModel& model, const Problem& problem)
{
  return predict_on<C>(tag, topo, topo, model, problem);
}

/// The library's algorithms for collective C, in order of preference on a tie:
/// `static constexpr auto list()` returns a hana::tuple of tags. Specialised in each
/// collective's header.
template <Collective C>
struct algorithm_candidates; // undefined: include the collective's header

/// The library's algorithms for C, as a hana::tuple of tags (the default candidates).
template <Collective C>
constexpr auto default_candidates()
{
  return algorithm_candidates<C>::list();
}

/// The outcome of select(): the cheapest fitting candidate's position in the list, its
/// name and predicted time; `found` is false (and index npos) when none fits.
struct Selection {
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
  std::size_t index = npos;
  std::string_view name{};
  double time = std::numeric_limits<double>::infinity();
  std::size_t candidates = 0; ///< how many fitted and were estimated
  constexpr bool found() const { return index != npos; }
};

/// The cheapest of `candidates` (a hana::tuple of algorithm tags of C) for `problem` on
/// `topo` under `model`; ties go to the earlier candidate. Candidates that do not fit are
/// skipped. constexpr: with a static topology and a constexpr model it runs at compile time.
/// Requirements: some candidate fits (a compile error when none can by type; else
/// std::invalid_argument), valid model, m and root. Cost: one estimate per fitting
/// candidate. collective in spirit: every rank that selects with the same arguments gets
/// the same answer.
template <Collective C, topology T, class... Tags>
constexpr Selection select(const boost::hana::tuple<Tags...>& candidates, const T& topo, const CostModel& model,
                           const Problem& problem)
{
  static_assert((costed_algorithm<C, Tags> && ...),
                "collectives::select: a candidate is not an algorithm of this collective known to the cost layer "
                "(see collectives::algorithm_cost)");
  static_assert((fits_type_v<C, Tags, T> || ...),
                "collectives::select: no candidate algorithm fits the topology's type");
  model.validated();
  struct State {
    std::size_t at = 0;
    Selection best{};
  };
  const State done = boost::hana::fold_left(candidates, State{}, [&](State s, auto tag) {
    using Tag = decltype(tag);
    if constexpr (fits_type_v<C, Tag, T>) {
      if (fits<C, Tag>(topo, problem)) {
        const double t = predict<C>(tag, topo, model, problem).time;
        ++s.best.candidates;
        if (t < s.best.time || !s.best.found()) s.best = Selection{s.at, Tag::name, t, s.best.candidates};
      }
    }
    ++s.at;
    return s;
  });
  detail::require(done.best.found(), "collectives::select: no candidate algorithm fits this topology and operator");
  return done.best;
}

/// select() over the library's algorithms for C (default_candidates<C>()).
template <Collective C, topology T>
constexpr Selection select(const T& topo, const CostModel& model, const Problem& problem)
{
  return select<C>(default_candidates<C>(), topo, model, problem);
}

/// Calls f(tag) with the candidate at `index` (a Selection's index). Only candidates
/// whose type fits T are instantiated. Throws std::invalid_argument for a bad index.
template <Collective C, topology T, class... Tags, class F>
void dispatch(const boost::hana::tuple<Tags...>& candidates, std::size_t index, F&& f)
{
  std::size_t at = 0;
  bool done = false;
  boost::hana::for_each(candidates, [&](auto tag) {
    if constexpr (fits_type_v<C, decltype(tag), T>)
      if (at == index) {
        f(tag);
        done = true;
      }
    ++at;
  });
  detail::require(done, "collectives::dispatch: no candidate at that index fits the topology");
}

/// Selects the cheapest of `candidates` for the communicator's topology and calls f(tag)
/// with it, e.g.
///   with_cheapest<Collective::alltoall>(comm, model, Problem{double(m)},
///                                       [&](auto alg) { alltoall(comm, send, recv, alg); });
/// f is instantiated for every candidate the topology's type allows: leave out of the
/// list those your call cannot compile with (e.g. ring reductions for a non-commutative
/// operator). Returns the selection. collective: every rank must call it with the same
/// model, problem and candidates (the selection is then the same everywhere).
template <Collective C, communicator Comm, class... Tags, class F>
Selection with_cheapest(const Comm& comm, const boost::hana::tuple<Tags...>& candidates, const CostModel& model,
                        const Problem& problem, F&& f)
{
  const Selection s = select<C>(candidates, comm.topology(), model, problem);
  dispatch<C, typename Comm::topology_type>(candidates, s.index, f);
  return s;
}

/// with_cheapest() over the library's algorithms for C.
template <Collective C, communicator Comm, class F>
Selection with_cheapest(const Comm& comm, const CostModel& model, const Problem& problem, F&& f)
{
  return with_cheapest<C>(comm, default_candidates<C>(), model, problem, f);
}


namespace detail {

/// What a collective called without an algorithm runs: the cheapest of its default
/// candidates for `problem` on comm's topology under comm's cost model, picked on the
/// first call with that problem and remembered by the communicator (selection builds and
/// estimates every candidate's schedule: O(p) to O(p^2) work, a loop of calls pays it
/// once). Calls f(tag) with the pick. The pick depends on nothing but the topology, the
/// model and the problem, so every rank that calls with the same ones picks the same
/// algorithm. f is instantiated for every candidate the topology's type allows.
template <Collective C, communicator Comm, class F>
void run_cheapest(const Comm& comm, const Problem& problem, F&& f)
{
  constexpr auto candidates = default_candidates<C>();
  std::size_t index = comm.choices().find(C, problem);
  if (index == Selection::npos) {
    index = select<C>(candidates, comm.topology(), comm.cost_model(), problem).index;
    comm.choices().remember(C, problem, index);
  }
  dispatch<C, typename Comm::topology_type>(candidates, index, f);
}

/// True when collective C's algorithm Tag accepts operator Op on T (a front end must not
/// instantiate, say, the ring reduce-scatter for a non-commutative operator).
template <Collective C, class Tag, bool Commutative>
inline constexpr bool accepts_operator_v = algorithm_cost<C, Tag>::any_operator || Commutative;

} // namespace detail

// ---------------------------------------------------------------------------------------
// Crossovers
// ---------------------------------------------------------------------------------------

/// The m > 0 at which two costs affine in m, a0 + a1 m and b0 + b1 m, are equal, if they
/// cross there (nullopt when parallel or crossing at m <= 0).
constexpr std::optional<double> affine_crossover(double a0, double a1, double b0, double b1)
{
  const double slope = a1 - b1;
  if (slope == 0) return std::nullopt;
  const double m = (b0 - a0) / slope;
  if (!(m > 0)) return std::nullopt;
  return m;
}

/// The crossover of two closed forms f(m), g(m) that are affine in m (every closed form of
/// closed_forms.hpp is, for fixed p and model): solved from their values at m = 0 and 1.
template <class F, class G>
constexpr std::optional<double> crossover(F f, G g)
{
  const double f0 = f(0.0), g0 = g(0.0);
  return affine_crossover(f0, f(1.0) - f0, g0, g(1.0) - g0);
}

/// The message size in (lo, hi] where algorithm A stops being cheaper than B (or B than
/// A), found by bisection on predict(): schedule costs are piecewise linear in m, so
/// this is the crossover when exactly one sign change lies in the interval. nullopt
/// when the order is the same at both ends. Cost: about 60 pairs of estimates.
template <Collective C, class A, class B, topology T>
constexpr std::optional<double> crossover(A a, B b, const T& topo, const CostModel& model, Problem problem, double lo,
                                          double hi)
{
  detail::require(lo >= 0 && lo < hi && hi <= max_block_words, "collectives::crossover: needs 0 <= lo < hi <= 1e15");
  auto diff = [&](double m) {
    problem.m = m;
    return predict<C>(a, topo, model, problem).time - predict<C>(b, topo, model, problem).time;
  };
  double dlo = diff(lo);
  const double dhi = diff(hi);
  if ((dlo < 0) == (dhi < 0) || dlo == 0 || dhi == 0) return std::nullopt;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    const double d = diff(mid);
    if ((d < 0) == (dlo < 0)) {
      lo = mid;
      dlo = d;
    } else {
      hi = mid;
    }
  }
  return lo + (hi - lo) / 2;
}

} // namespace collectives
