#pragma once
// Choosing an algorithm by its cost. For a topology, a cost model and a call's problem
// (message size, root, shift, whether the operator commutes, in place), every candidate
// algorithm that fits is built into the schedule that would run and estimated
// (schedule_cost.hpp); the cheapest wins, ties going to the earlier candidate:
//
//   constexpr auto pick = select<Collective::alltoall>(Hypercube<3>{}, model, Problem{1024});
//   static_assert(pick.name == "pairwise_xor");                  // at compile time
//   auto pick = select<Collective::alltoall>(Hypercube<>::of_dims(d), model, Problem{m});
//
// The candidates are a collective's list (algorithms<C>) or any hana::tuple of algorithm
// tags. Those that the topology's type rules out are skipped at compile time
// (boost::hana::filter, so they are never instantiated), the others by value (fits()).
// Selection depends on nothing but its arguments, so every rank that selects with the
// same ones picks the same algorithm.

#include <collectives/algorithm/algorithm.hpp>
#include <collectives/cost/model.hpp>
#include <collectives/cost/schedule_cost.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/topology/concepts.hpp>

#include <boost/hana/filter.hpp>
#include <boost/hana/fold_left.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace collectives {

namespace detail {
constexpr bool rooted(Collective c)
{
  return c == Collective::broadcast || c == Collective::reduce || c == Collective::scatter || c == Collective::gather;
}

/// A rooted collective's root is a rank of `topo`: what every estimate of a candidate
/// checks first.
template <topology T>
constexpr void require_root(Collective c, const T& topo, const Problem& problem)
{
  if (rooted(c)) require(problem.root < topo.size(), "collectives::predict: the root is not a rank of the topology");
}

/// f(schedule, words per block) for algorithm A built for `topo` and `problem`, once the
/// root is checked: what every estimate of a candidate starts from.
template <class A, topology T, class F>
constexpr auto with_schedule(A, const T& topo, const Problem& problem, F&& f)
{
  require_root(A::collective, topo, problem);
  return f(A::schedule(topo, problem), problem.m / static_cast<double>(A::pieces(topo.size())));
}
} // namespace detail

/// The estimate of algorithm A built for topology `topo` (the schedule a communicator over
/// `topo` runs) and run on `network` (the same size): e.g. a hypercube algorithm mapped
/// onto a ring, or any algorithm on FullyConnected for a transport without links. The
/// schedule's blocks are problem.m / A::pieces(p) words. Requirements: A fits `topo` and
/// the problem (a compile error when the topology's type rules it out, else
/// std::invalid_argument naming the algorithm and the requirement), a valid model, m and
/// root, a network of the same size.
template <algorithm A, topology T, topology N>
constexpr CostReport predict_on(A a, const T& topo, const N& network, const CostModel& model, const Problem& problem)
{
  static_assert(fits_topology_type<A, T>, "collectives::predict: the algorithm does not fit the topology's type");
  detail::require_fits(a, topo, problem);
  return detail::with_schedule(a, topo, problem, [&](const auto& s, double m) { return estimate(s, network, model, m); });
}

/// The estimate of algorithm A on `topo` (see predict_on).
template <algorithm A, topology T>
constexpr CostReport predict(A a, const T& topo, const CostModel& model, const Problem& problem)
{
  return predict_on(a, topo, topo, model, problem);
}

namespace detail {
/// predict()'s time, or std::nullopt when it is known to be at least `limit` (beyond it,
/// with `equal_passes`; see estimate_unless_at_least). A fits `topo` and the problem. The
/// time is estimate_by_classes()'s, also at run time.
template <algorithm A, topology T>
constexpr std::optional<double> predict_unless_beyond(A a, const T& topo, const CostModel& model, const Problem& problem,
                                                      double limit, bool equal_passes)
{
  const auto report = with_schedule(a, topo, problem, [&](const auto& s, double m) {
    return estimate_unless_beyond(s, topo, model, m, limit, equal_passes);
  });
  if (!report) return std::nullopt;
  return report->time;
}
} // namespace detail

/// The outcome of select(): the cheapest fitting candidate's position in the candidates,
/// its name and predicted time; `found` is false (and index npos) when none fits.
struct Selection {
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
  std::size_t index = npos;
  std::string_view name{};
  double time = std::numeric_limits<double>::infinity();
  std::size_t candidates = 0; ///< how many fitted and were estimated
  constexpr bool found() const { return index != npos; }
};

namespace detail {
/// Messages (sent and received) in step 0 of s of rank 0, or of the rank s names as its
/// busiest (schedule.hpp); p - 1 for a step stated as a star (Symmetry::Star).
template <schedule S>
constexpr std::size_t messages_of_busiest(const S& s)
{
  struct Count {
    std::size_t n = 0;
    constexpr void send(const SendOp&) { ++n; }
    constexpr void recv(const RecvOp&) { ++n; }
    constexpr void local(const LocalOp&) {}
  } count;
  if constexpr (symmetric_schedule<S>) // a star's root: p - 1, not counted one by one
    if (s.num_steps() > 0 && s.symmetry(0).star.on) return s.size() - 1;
  std::size_t r = 0;
  if constexpr (requires { { s.busiest_rank(std::size_t{0}) } -> std::convertible_to<std::size_t>; })
    r = s.busiest_rank(0);
  if (s.num_steps() > 0 && r < s.size()) s.visit(r, 0, count);
  return count.n;
}

/// How much working out s's estimate takes, roughly: its steps times the messages of its
/// busiest rank in step 0 (a tree before a ring; not the linear scatter's one step of
/// p - 1 messages). select()'s order of candidates at compile time.
template <schedule S>
constexpr std::size_t estimate_work(const S& s)
{
  return s.num_steps() * std::max<std::size_t>(1, messages_of_busiest(s));
}

/// The position in `candidates` of the candidate of least measure(tag, position, least),
/// where `least` is the least measure so far (npos before any) and measure gives std::nullopt
/// for a candidate that does not take part; ties go to the earlier one; npos when none
/// takes part. Only the candidates topology type T allows are measured. (select()'s seed:
/// the candidate worked out first.)
template <class T, class... A, class Measure>
constexpr std::size_t least_candidate(const boost::hana::tuple<A...>& candidates, Measure&& measure)
{
  std::size_t at = 0, best = Selection::npos, least = Selection::npos;
  boost::hana::for_each(candidates, [&](auto tag) {
    if constexpr (fits_topology_type<decltype(tag), T>) {
      const std::optional<std::size_t> w = measure(tag, at, least);
      if (w && (best == Selection::npos || *w < least)) {
        best = at;
        least = *w;
      }
    }
    ++at;
  });
  return best;
}

/// select(): with `Symmetric` (constant evaluation) the estimates read the schedules'
/// symmetry and candidates that cannot win are bounded, not worked out; without, every
/// candidate's estimate visits every rank (estimate_every_rank: the same times, bit for
/// bit), so that run-time callers (select() at run time, a collective called without an
/// algorithm) do not compile the symmetric estimate for every schedule and topology type.
/// `allowed` (without Symmetric): only the candidates whose bit is set, by position, compete.
/// `ByClasses` (without Symmetric): a candidate that states its symmetry is estimated by
/// classes through WalkScheduleRef (time_by_classes_unless_beyond: the same times), what
/// select() at run time does; a collective called without an algorithm walks every rank.
template <bool Symmetric, bool ByClasses = false, topology T, class... A>
constexpr Selection select_among(const boost::hana::tuple<A...>& candidates, const T& topo, const CostModel& model,
                                 const Problem& problem, std::uint64_t allowed = ~std::uint64_t{0})
{
  static_assert((algorithm<A> && ...), "collectives::select: a candidate is not an algorithm type");
  static_assert((fits_topology_type<A, T> || ...), "collectives::select: no candidate algorithm fits the topology's type");
  model.validated();
  // With Symmetric, the fitting candidate that looks cheapest to work out is worked out
  // first (estimate_work), among those that state their symmetry when any does. Its time
  // bounds every other, so a candidate whose steps so far add up past it is never finished
  // (estimate_unless_at_least). The seed's time comes from the evaluation by classes (no
  // limit), so that calling this at run time (the tests do) runs what constant evaluation
  // runs.
  std::size_t first = Selection::npos;
  double first_time = 0;
  if constexpr (Symmetric) {
    bool any_symmetric = false;
    boost::hana::for_each(candidates, [&](auto tag) {
      using Tag = decltype(tag);
      if constexpr (fits_topology_type<Tag, T>)
        if constexpr (symmetric_schedule<decltype(Tag::schedule(topo, problem))>)
          any_symmetric = any_symmetric || fits(tag, topo, problem);
    });
    first = least_candidate<T>(candidates, [&](auto tag, std::size_t, std::size_t least) -> std::optional<std::size_t> {
      using S = decltype(decltype(tag)::schedule(topo, problem));
      if (!((symmetric_schedule<S> || !any_symmetric) && fits(tag, topo, problem))) return std::nullopt;
      const S s = decltype(tag)::schedule(topo, problem);
      // (Counted only for a candidate of fewer steps than the least work so far.)
      const std::size_t steps = s.num_steps();
      return steps < least ? detail::estimate_work(s) : steps;
    });
    call_candidate_at<T>(candidates, first, [&](auto tag) {
      first_time =
        *detail::predict_unless_beyond(tag, topo, model, problem, std::numeric_limits<double>::infinity(), true);
    });
  }
  if constexpr (Symmetric) {
    // After the seed, every other fitting candidate: first those that promise nothing, the
    // cheapest to work out first (estimate_work: a mesh's dimensional all-to-all, 62
    // steps, before the all-port one's 512 rounds of ten messages, which, worked out in the
    // list's order under a best time it undercut, took clang++ past its limit on
    // Mesh<32,32> store-and-forward), then those that promise a message in every step (a
    // ring pipeline's hundreds of steps), the least time that promise allows first
    // (step_promise). A pipeline is then passed over on its promise alone once a cheaper
    // one is known: broadcast and reduce on Ring<1024>, with a hop as dear as a start-up,
    // or under store-and-forward with a million words a block, work out the staggered
    // pipeline, which wins, and pass over the plain one, whose ends are dearer (both were
    // worked out to the end, 1.3-1.5 times clang++'s limit). The order changes the work,
    // not the pick: a candidate wins only if cheaper than the best so far, or as cheap and
    // earlier in the list.
    Selection best{};
    std::size_t fitting = 0;
    struct Pending {
      double promise = 0;     // the least time its promise allows (0: none)
      std::size_t work = 0;   // estimate_work
      std::size_t at = 0;     // its position in the list
      constexpr bool before(const Pending& o) const
      {
        return promise < o.promise || (promise == o.promise && work < o.work);
      }
    };
    std::array<Pending, sizeof...(A)> order{};
    std::size_t pending = 0, at = 0;
    boost::hana::for_each(candidates, [&](auto tag) {
      using Tag = decltype(tag);
      if constexpr (fits_topology_type<Tag, T>)
        if (fits(tag, topo, problem)) {
          ++fitting;
          if (at == first)
            best = Selection{at, Tag::name, first_time, 0};
          else
            order[pending++] = with_schedule(tag, topo, problem, [&](const auto& sched, double m) {
              return Pending{detail::step_promise(sched, topo, model, m).rest(0), detail::estimate_work(sched), at};
            });
        }
      ++at;
    });
    for (std::size_t i = 1; i < pending; ++i) // (stable: equal keys keep the list's order)
      for (std::size_t j = i; j > 0 && order[j].before(order[j - 1]); --j) std::swap(order[j], order[j - 1]);
    for (std::size_t i = 0; i < pending; ++i)
      call_candidate_at<T>(candidates, order[i].at, [&](auto tag) {
        const std::size_t here = order[i].at;
        const bool earlier = here < best.index; // wins a tie with the best so far
        const auto t = detail::predict_unless_beyond(tag, topo, model, problem, best.time, earlier);
        if (t && (*t < best.time || (*t == best.time && earlier)))
          best = Selection{here, decltype(tag)::name, *t, 0};
      });
    best.candidates = fitting;
    detail::require(best.found(), "collectives::select: no candidate algorithm fits this topology and problem");
    return best;
  } else {
    // Without Symmetric (at run time), the fitting candidate of fewest steps is estimated
    // first, and every other candidate's walk stops once its steps add up past the best time
    // so far (detail::time_unless_beyond): such a candidate cannot win, so the pick is the
    // same, and a long schedule loses after a few steps instead of p - 1 (a default
    // all-to-all of 16 words on a 4096-node hypercube selected in 7-14 s without this).
    double seed_time = std::numeric_limits<double>::infinity();
    std::size_t seed = Selection::npos;
    // (One lambda for both uses of a candidate's estimate: one instantiation per candidate.)
    const auto time_of = [&](auto tag, double beyond) {
      return with_schedule(tag, topo, problem, [&](const auto& sched, double m) {
        if constexpr (ByClasses) return time_by_classes_unless_beyond(sched, topo, model, m, beyond);
        else return time_unless_beyond(sched, topo, model, m, beyond);
      });
    };
    seed = least_candidate<T>(candidates, [&](auto tag, std::size_t at, std::size_t) -> std::optional<std::size_t> {
      if (!((at >= 64 || ((allowed >> at) & 1) != 0) && fits(tag, topo, problem))) return std::nullopt;
      require_root(decltype(tag)::collective, topo, problem); // (before a schedule is built)
      return decltype(tag)::schedule(topo, problem).num_steps();
    });
    call_candidate_at<T>(candidates, seed,
                         [&](auto tag) { seed_time = time_of(tag, std::numeric_limits<double>::infinity()); });
    struct State {
      std::size_t at = 0;
      Selection best{};
    };
    const State done = boost::hana::fold_left(candidates, State{}, [&](State s, auto tag) {
      using Tag = decltype(tag);
      if constexpr (fits_topology_type<Tag, T>) {
        if ((s.at >= 64 || ((allowed >> s.at) & 1) != 0) && fits(tag, topo, problem)) {
          ++s.best.candidates;
          // A time above `bound` may be that of the steps walked so far: it cannot win.
          const double bound = s.best.found() ? std::min(s.best.time, seed_time) : seed_time;
          const double t = s.at == seed ? seed_time : time_of(tag, bound);
          if (!s.best.found() || t < s.best.time) s.best = Selection{s.at, Tag::name, t, s.best.candidates};
        }
      }
      ++s.at;
      return s;
    });
    detail::require(done.best.found(), "collectives::select: no candidate algorithm fits this topology and problem");
    return done.best;
  }
}

/// What a selection at run time among `Candidates` (a hana::tuple type) on topology type T
/// runs on: T's all-dynamic twin W (walk_topology_t: the same network, so the same
/// estimates, fits and pick) when W's type allows every candidate T's does and there are
/// at most 64 (`allowed` is a 64-bit mask), else T itself. `allowed`: bit j, T's type
/// allows the j-th candidate (the others never compete, as on T).
template <class T, class Candidates>
struct RunTimeSelection;
template <class T, class... A>
struct RunTimeSelection<T, boost::hana::tuple<A...>> {
  using W = walk_topology_t<T>;
  static constexpr bool on_twin = !std::same_as<W, T> && sizeof...(A) <= 64 &&
                                  ((!fits_topology_type<A, T> || fits_topology_type<A, W>) && ...);
  using type = std::conditional_t<on_twin, W, T>;
  static constexpr std::uint64_t allowed = [] {
    std::uint64_t mask = 0, bit = 1;
    ((void(mask |= fits_topology_type<A, T> ? bit : 0), void(bit <<= 1)), ...);
    return on_twin ? mask : ~std::uint64_t{0};
  }();
};

/// select_among<false, ByClasses>(candidates, topo, model, problem, allowed), run on T's
/// all-dynamic twin where RunTimeSelection allows: the pick and its position in
/// `candidates` are the same, but a program compiles the selection once per family of
/// topology and list (Ring<4>, Ring<8> and Ring<> share it), not once per static shape.
template <bool ByClasses = false, topology T, class... A>
Selection select_at_run_time(const boost::hana::tuple<A...>& candidates, const T& topo, const CostModel& model,
                             const Problem& problem, std::uint64_t allowed = ~std::uint64_t{0})
{
  static_assert((fits_topology_type<A, T> || ...),
                "collectives::select: no candidate algorithm fits the topology's type");
  using R = RunTimeSelection<T, boost::hana::tuple<A...>>;
  return select_among<false, ByClasses>(candidates, typename R::type(topo), model, problem, allowed & R::allowed);
}

/// Whether T's all-dynamic twin (walk_topology_t) allows every algorithm of C that T
/// allows for a call with such an operator and in-place use: then a default call may
/// select on the twin (default_candidates, and the compiled mode's ChoiceMask).
template <Collective C, class T, bool Commutative, bool InPlace>
inline constexpr bool twin_allows_all = boost::hana::unpack(algorithms<C>, [](auto... a) {
  return ((!algorithm_for<decltype(a), C, T, Commutative, InPlace> ||
           algorithm_for<decltype(a), C, walk_topology_t<T>, Commutative, InPlace>) &&
          ...);
});

/// The candidates a default call of C on topology type T selects among: C's algorithms
/// that the operator's commutativity and in-place use allow, and the type of the topology
/// the selection runs on (T's all-dynamic twin when twin_allows_all, else T).
/// One list per family of topology, so that Ring<4> and Ring<8> share a selection.
template <Collective C, class T, bool Commutative = true, bool InPlace = false>
constexpr auto default_candidates()
{
  using S = std::conditional_t<twin_allows_all<C, T, Commutative, InPlace>, walk_topology_t<T>, T>;
  return candidates_for<C, S, Commutative, InPlace>();
}

/// f(tag) for the candidate at `index` of default_candidates<C, T, ...>(), which T's type
/// allows (select_at_run_time picks no other; f is instantiated for those only). This runs
/// on every default call, through call_candidate_at's chain of direct branches. A table of
/// function pointers instead took 1.06-1.10x the named call's time in bench_collectives (p
/// = 2 reduce, 1 KiB, five runs) where a chain or a walk took 0.97-1.06x
/// (docs/performance-history.md, forty-seventh session).
template <class T, class... A, class F>
void visit_default_candidate(const boost::hana::tuple<A...>& candidates, std::size_t index, F&& f)
{
  require(call_candidate_at<T>(candidates, index, f), "collectives::visit_algorithm: no candidate at that index");
}
} // namespace detail

/// The cheapest of `candidates` (a hana::tuple of algorithm tags) for `problem` on `topo`
/// under `model`; ties go to the earlier candidate; those that do not fit are skipped.
/// constexpr: with a static topology and a constexpr model it runs at compile time (on
/// large topologies too: in constant evaluation the estimate reads the schedules'
/// symmetry, and a candidate shown to cost more than another is not worked out).
/// At run time every candidate's estimate reads the schedule through function pointers
/// (estimate() at run time: by classes where the schedule states its symmetry, the same
/// times, bit for bit), one evaluation per family of topology for a caller to compile
/// (a static torus or hypercube selects on its all-dynamic twin, the same network); the
/// candidate of fewest steps is estimated first, and every other stops once it costs more
/// than the best so far. (A collective called without an algorithm selects the same way
/// but visits every rank, which is smaller to compile: with_selected() does the same.)
/// Requirements: some candidate fits (a compile error when none can by type; else
/// std::invalid_argument), a valid model, m and root. Cost: at run time at most one
/// estimate per fitting candidate; in constant evaluation at most that, usually less.
template <topology T, class... A>
constexpr Selection select(const boost::hana::tuple<A...>& candidates, const T& topo, const CostModel& model,
                           const Problem& problem)
{
  // The builtin, not std::is_constant_evaluated(): folded by the front end even at -O0, so
  // a run-time caller does not emit the symmetric path.
  if (__builtin_is_constant_evaluated()) return detail::select_among<true>(candidates, topo, model, problem);
  return detail::select_at_run_time<true>(candidates, topo, model, problem);
}

/// select() over collective C's algorithms (algorithms<C>).
template <Collective C, topology T>
constexpr Selection select(const T& topo, const CostModel& model, const Problem& problem)
{
  return select(algorithms<C>, topo, model, problem);
}

/// Calls f(tag) with the algorithm of C that select() picks for `problem` on `topo` under
/// `model` (f is instantiated only for the algorithms topology type T allows), e.g. to get
/// the schedule a collective called without an algorithm runs:
///   with_selected<Collective::alltoall>(topo, model, problem,
///                                       [&](auto alg) { verify(alg.schedule(topo, problem)); });
/// Returns the selection (its index counts those algorithms only).
template <Collective C, topology T, class F>
Selection with_selected(const T& topo, const CostModel& model, const Problem& problem, F&& f)
{
  constexpr auto candidates = detail::default_candidates<C, T>();
  Selection pick = detail::select_at_run_time(candidates, topo, model, problem);
  detail::visit_default_candidate<T>(candidates, pick.index, f);
  // (Its position among the candidates T's type allows: those before it that it allows.)
  std::size_t at = 0, before = 0;
  boost::hana::for_each(candidates, [&](auto tag) {
    if (at++ < pick.index && fits_topology_type<decltype(tag), T>) ++before;
  });
  pick.index = before;
  return pick;
}

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
template <algorithm A, algorithm B, topology T>
constexpr std::optional<double> crossover(A a, B b, const T& topo, const CostModel& model, Problem problem, double lo,
                                          double hi)
{
  detail::require(lo >= 0 && lo < hi && hi <= max_block_words, "collectives::crossover: needs 0 <= lo < hi <= 1e15");
  auto diff = [&](double m) {
    problem.m = m;
    return predict(a, topo, model, problem).time - predict(b, topo, model, problem).time;
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
