// The estimate that reads the schedules' symmetry (a visit per class of ranks: Symmetry in
// schedule/schedule.hpp, cost/symmetric_cost.hpp; detail::estimate_by_classes, what
// estimate() runs in constant evaluation, and estimate() at run time, which runs it through
// WalkScheduleRef's function pointers) against the one that visits every rank of every
// step (estimate_every_rank, what a selection at run time runs): the same CostReport, bit
// for bit, for every algorithm of every collective (read from the registry), on rings, meshes,
// tori, hypercubes and fully connected networks, under both routings and both port models,
// for several roots, in place and not; also each schedule costed on a network its
// translations do not preserve (a hypercube algorithm on a ring, a ring algorithm on a
// hypercube), where the estimate works from the routes' structure. And
// estimate_unless_at_least (what select() uses to pass over candidates that cannot win)
// against estimate(), the cheap step bounds it sums first against every step's time, and
// select() as constant evaluation runs it against select() at run time. And, once per
// schedule, each step's stated classes against what every rank does in it
// (stated_classes_mismatch): the estimates alone cannot tell a wrong class where any
// nonempty one costs the same.

#include <catch2/catch.hpp>

#include <collectives/cost.hpp>
#include <collectives/execution/schedule_ref.hpp> // detail::keepable_schedule, detail::same_thunk

#include <boost/hana/for_each.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

using namespace collectives;
namespace hana = boost::hana;

namespace {

const CostModel symmetry_models[] = {
  CostModel{.t_s = 1, .t_w = 1e-3},
  CostModel{1e-6, 1e-9, 5e-8, 1e-10},
  CostModel{1e-6, 1e-9, 5e-8, 0, Routing::store_and_forward, Ports::all},
  CostModel{1e-6, 1e-9, 5e-8, 2e-10, Routing::cut_through, Ports::all},
};

template <class N>
std::string describe(const N& net)
{
  return std::to_string(net.size()) + " nodes (" + typeid(N).name() + ")";
}

/// What check_collective works out for one algorithm's schedule, typed, for the checks
/// below (which are not templates: Catch2's macros, expanded in a template instantiated
/// for every algorithm, topology and network, were half of this TU's code).
struct SymmetryResults {
  CostReport got, want;                      // by classes, and visiting every rank
  CostReport erased;                         // estimate() at run time: by classes, through WalkScheduleRef
  std::optional<CostReport> bounded[3];      // estimate_unless_at_least at the limits below
  double limits[3]{};                        // want.time * 0.5, want.time, want.time * 2 + 1
  std::optional<CostReport> at_limit;        // estimate_unless_beyond(want.time, equal passes)
  bool zero_limit_stops = true;              // !estimate_unless_at_least(limit 0), if steps
  std::vector<std::pair<double, double>> step_bounds; // (step_lower_bound, walk_step time)
};

void check_symmetry_results(const SymmetryResults& r, const std::string& context)
{
  INFO(context);
  CHECK(r.got.time == r.want.time);
  CHECK(r.got.steps == r.want.steps);
  CHECK(r.got.messages == r.want.messages);
  CHECK(r.got.congestion == r.want.congestion);
  CHECK(r.got.words == r.want.words);
  CHECK(r.erased == r.want);
  // What select() uses: a report exactly when the time is below the limit.
  for (std::size_t i = 0; i < 3; ++i) {
    if (r.bounded[i]) CHECK(r.bounded[i]->time == r.want.time);
    else CHECK(r.want.time >= r.limits[i]);
    if (r.want.time < r.limits[i]) CHECK(r.bounded[i].has_value());
  }
  // With equal_passes (a candidate that would win a tie) a time equal to the limit is
  // worked out. And the steps stop as soon as their sum reaches the limit: with a limit of
  // 0, after the first step.
  CHECK((r.at_limit && r.at_limit->time == r.want.time));
  CHECK(r.zero_limit_stops);
  // The cheap bound of a step that the bounded estimate sums first: never above the step's
  // time.
  for (std::size_t k = 0; k < r.step_bounds.size(); ++k)
    if (!(r.step_bounds[k].first <= r.step_bounds[k].second))
      FAIL_CHECK("step " << k << ": bound " << r.step_bounds[k].first << " above the time " << r.step_bounds[k].second);
}

std::string symmetry_context(Collective c, std::string_view algorithm, const std::string& net, const CostModel& model,
                             const Problem& problem)
{
  return std::string(collective_name(c)) + " " + std::string(algorithm) + " on " + net + ", m = " +
         std::to_string(problem.m) + ", root " + std::to_string(problem.root) + ", ports " +
         (model.ports == Ports::one ? "one" : "all") + ", routing " +
         (model.routing == Routing::cut_through ? "cut-through" : "store-and-forward");
}

/// A schedule seen through its visit and its symmetry (the thunks the estimate at run time
/// calls anyway), so that check_stated_classes is compiled once, not per schedule type.
struct StatedSteps {
  const void* s;
  std::size_t p, steps;
  void (*visit)(const void*, std::size_t, std::size_t, StepOps&);
  Symmetry (*symmetry)(const void*, std::size_t);
};

/// A step stated as a star (Symmetry::Star) against what every rank does in it (ops[r]).
std::string star_mismatch(const Symmetry::Star& star, const std::vector<StepOps>& ops)
{
  const std::size_t p = ops.size();
  if (star.root >= p) return "the star's root is no rank";
  std::vector<bool> met(p, false);
  met[star.root] = true;
  const StepOps& root = ops[star.root];
  if ((star.fan_in ? root.sends.size() : root.recvs.size()) != 0) return "the star's root has a message the other way";
  std::size_t local = 0;
  for (const LocalOp& op : root.locals) local += op.from.count;
  if (local != star.root_local) return "the star's root has other local work";
  const auto each = [&](std::size_t peer, std::size_t blocks) {
    if (peer >= p || met[peer] || blocks != star.blocks) return false;
    met[peer] = true;
    return true;
  };
  for (const SendOp& op : root.sends)
    if (!each(op.peer, op.blocks.count)) return "the star's root sends twice, or other blocks";
  for (const RecvOp& op : root.recvs)
    if (!each(op.peer, op.blocks.count) || op.combine != Combine::copy)
      return "the star's root receives twice, or other blocks";
  for (std::size_t r = 0; r < p; ++r) {
    if (r == star.root) continue;
    const std::string who = "rank " + std::to_string(r) + " of the star";
    if (!met[r]) return who + " has no message with the root";
    const StepOps& o = ops[r];
    const bool one = star.fan_in ? o.sends.size() == 1 && o.recvs.empty() && o.sends[0].peer == star.root &&
                                     o.sends[0].blocks.count == star.blocks
                                 : o.recvs.size() == 1 && o.sends.empty() && o.recvs[0].peer == star.root &&
                                     o.recvs[0].blocks.count == star.blocks && o.recvs[0].combine == Combine::copy;
    if (!one || !o.locals.empty()) return who + " does more than its one message";
  }
  return "";
}

/// What each step's Symmetry states, against what every rank does in it (the contract in
/// schedule/schedule.hpp, which the estimates trust): classes do not overlap and list no
/// rank twice; each member rep + g sends and receives what rep does with every peer q
/// replaced by q + g, in the same order and with the same block counts, combining where rep
/// combines (on either side: the order of operands costs the same), and has local work of
/// the same sizes; a rank in no class does nothing. (The estimates alone
/// cannot tell a wrong class in a step of local work only: any nonempty class costs the
/// same there.) Returns the first mismatch found, or "".
std::string stated_classes_mismatch(const StatedSteps& e)
{
  const auto combines = [](Combine c) { return c != Combine::copy; };
  std::vector<StepOps> ops(e.p);
  std::vector<std::size_t> owner(e.p);
  constexpr std::size_t nobody = ~std::size_t{0};
  for (std::size_t k = 0; k < e.steps; ++k) {
    const Symmetry sym = e.symmetry(e.s, k);
    if (!sym.stated()) continue;
    const std::string at = "step " + std::to_string(k) + ": ";
    for (std::size_t r = 0; r < e.p; ++r) {
      ops[r] = StepOps{};
      e.visit(e.s, r, k, ops[r]);
      owner[r] = nobody;
    }
    if (sym.star.on) {
      if (const std::string m = star_mismatch(sym.star, ops); !m.empty()) return at + m;
      continue;
    }
    const RankGroup& g = sym.group;
    for (std::size_t c = 0; c < sym.classes; ++c) {
      const RankClass& cl = sym.cls[c];
      const std::size_t n = cl.size(g);
      if (n > 0 && cl.rep >= e.p) return at + "class " + std::to_string(c) + "'s rep is no rank";
      const StepOps& want = n > 0 ? ops[cl.rep] : StepOps{};
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t t = cl.translation(g, j), r = g.plus(cl.rep, t);
        const std::string who = at + "rank " + std::to_string(r) + " (class " + std::to_string(c) + ", rep " +
                                std::to_string(cl.rep) + ")";
        if (owner[r] != nobody) return who + " is listed twice";
        owner[r] = c;
        const StepOps& got = ops[r];
        if (got.sends.size() != want.sends.size() || got.recvs.size() != want.recvs.size() ||
            got.locals.size() != want.locals.size())
          return who + " does other ops than its rep";
        for (std::size_t i = 0; i < got.sends.size(); ++i)
          if (got.sends[i].peer != g.plus(want.sends[i].peer, t) || got.sends[i].blocks.count != want.sends[i].blocks.count)
            return who + ": send " + std::to_string(i) + " is not its rep's translated";
        for (std::size_t i = 0; i < got.recvs.size(); ++i)
          if (got.recvs[i].peer != g.plus(want.recvs[i].peer, t) ||
              got.recvs[i].blocks.count != want.recvs[i].blocks.count || combines(got.recvs[i].combine) != combines(want.recvs[i].combine))
            return who + ": receive " + std::to_string(i) + " is not its rep's translated";
        for (std::size_t i = 0; i < got.locals.size(); ++i)
          if (got.locals[i].from.count != want.locals[i].from.count ||
              got.locals[i].to.count != want.locals[i].to.count || combines(got.locals[i].combine) != combines(want.locals[i].combine))
            return who + ": local " + std::to_string(i) + " is not the size of its rep's";
      }
    }
    for (std::size_t r = 0; r < e.p; ++r)
      if (owner[r] == nobody && (!ops[r].sends.empty() || !ops[r].recvs.empty() || !ops[r].locals.empty()))
        return at + "rank " + std::to_string(r) + " is in no class but does something";
  }
  return "";
}

/// Whether `s`, Tag's schedule for `problem`, equals Tag's schedule for the same problem with
/// root 0 and a commutative operator, when that is another problem: the estimates read only
/// the schedule, the network, the model and m, and check_every_collective costs that problem
/// too, so costing `s` again would prove nothing (most collectives ignore the root, and most
/// the operator: this takes about 40 % off the run).
template <class Tag, class T, class S>
bool same_as_root_0_commutative(Tag tag, const T& topo, const Problem& problem, const S& s)
{
  Problem first = problem;
  first.root = 0;
  first.commutative = true;
  if constexpr (detail::keepable_schedule<S>) {
    if ((first.root == problem.root && first.commutative == problem.commutative) || !fits(tag, topo, first))
      return false;
    const S other = Tag::schedule(topo, first);
    return detail::same_thunk<S>(&other, &s);
  } else {
    return false;
  }
}

/// Every algorithm of C that fits `topo`, its schedule costed on `net` both ways.
template <Collective C, class T, class N>
void check_collective(const T& topo, const N& net, const CostModel& model, const Problem& problem, std::size_t& compared,
                      bool check_classes = false)
{
  hana::for_each(algorithms<C>, [&](auto tag) {
    using Tag = decltype(tag);
    if constexpr (fits_topology_type<Tag, T>) {
      if (!fits(tag, topo, problem)) return;
      const auto s = Tag::schedule(topo, problem);
      if (same_as_root_0_commutative(tag, topo, problem, s)) return;
      if constexpr (symmetric_schedule<std::remove_const_t<decltype(s)>>)
        if (check_classes) {
          using S = std::remove_const_t<decltype(s)>;
          const std::string mismatch = stated_classes_mismatch(
            {&s, s.size(), s.num_steps(), &detail::visit_thunk<S>, &detail::symmetry_thunk<S>});
          INFO(symmetry_context(C, Tag::name, describe(topo), model, problem));
          CHECK(mismatch == "");
        }
      const double m = problem.m / static_cast<double>(Tag::pieces(topo.size()));
      SymmetryResults r;
      r.got = detail::estimate_by_classes(s, net, model, m);
      r.want = estimate_every_rank(s, net, model, m);
      r.erased = estimate(s, net, model, m);
      const double limits[3] = {r.want.time * 0.5, r.want.time, r.want.time * 2 + 1};
      for (std::size_t i = 0; i < 3; ++i) {
        r.limits[i] = limits[i];
        r.bounded[i] = estimate_unless_at_least(s, net, model, m, limits[i]);
      }
      r.at_limit = detail::estimate_unless_beyond(s, net, model, m, r.want.time, true);
      if (s.num_steps() > 0) r.zero_limit_stops = !estimate_unless_at_least(s, net, model, m, 0.0);
      // (The cheap bound is not used under half_duplex.)
      if (!model.half_duplex) {
        detail::MessageStep<N> walker(net, model, m);
        for (std::size_t k = 0; k < s.num_steps(); ++k)
          r.step_bounds.emplace_back(detail::step_lower_bound(s, k, net, model, m), detail::walk_step(s, k, walker).time);
      }
      check_symmetry_results(r, symmetry_context(C, Tag::name, describe(net), model, problem));
      ++compared;
    }
  });
}

/// select() as constant evaluation runs it (symmetric estimates; the candidate of fewest
/// steps first, the others abandoned once they cannot win) against select() at run time
/// (every rank visited, every candidate finished): the same pick and time, ties included;
/// and select() at run time (by classes through WalkScheduleRef) against the walk.
template <Collective C, class T>
void check_select_by_classes(const T& topo, const CostModel& model, const Problem& problem)
{
  constexpr auto candidates = detail::candidates_for<C, T>();
  const Selection got = detail::select_among<true>(candidates, topo, model, problem);
  const Selection want = detail::select_among<false>(candidates, topo, model, problem);
  const Selection erased = detail::select_among<false, true>(candidates, topo, model, problem);
  INFO(std::string(collective_name(C)) << " on " << describe(topo) << ", root " << problem.root << ", t_s "
                                       << model.t_s << ", t_w " << model.t_w);
  CHECK(got.index == want.index);
  CHECK(got.time == want.time);
  CHECK(got.candidates == want.candidates);
  CHECK(erased.index == want.index);
  CHECK(erased.time == want.time);
  CHECK(erased.candidates == want.candidates);
}

template <class T, class N, std::size_t... I>
void check_every_collective(const T& topo, const N& net, std::index_sequence<I...>, std::size_t& compared)
{
  // The stated classes against the visits: once per schedule (under the first model, on
  // the schedule's own network; neither changes the schedule).
  constexpr bool own_network = std::is_same_v<T, N>;
  for (const CostModel& model : symmetry_models)
    for (std::size_t root : {std::size_t{0}, topo.size() / 2, topo.size() - 1})
      for (bool commutative : {true, false})
        (check_collective<all_collectives[I]>(topo, net, model, Problem{96, root, 3, commutative, false}, compared,
                                              own_network && &model == &symmetry_models[0]),
         ...);
  // In place (schedules differ: a reduce tree's step 0, a ring reduce-scatter's last step),
  // under fewer models; and the shared-memory terms, which the evaluation by classes
  // leaves to the walk (so that case compares the typed walk with the one through
  // WalkScheduleRef).
  const CostModel in_place_models[] = {symmetry_models[0], symmetry_models[2],
                                       CostModel{.t_s = 1, .t_w = 1e-3, .half_duplex = true, .lanes = 2}};
  for (const CostModel& model : in_place_models)
    for (std::size_t root : {std::size_t{0}, topo.size() - 1})
      (check_collective<all_collectives[I]>(topo, net, model, Problem{96, root, 3, true, true}, compared,
                                            own_network && &model == &in_place_models[0]),
       ...);
  // A reduce tree in place with an operator not known to be commutative: rooted at rank 0,
  // whose nodes with children load their partials in step 0, then a step to the root.
  for (std::size_t root : {std::size_t{0}, topo.size() / 2, topo.size() - 1})
    check_collective<Collective::reduce>(topo, net, symmetry_models[1], Problem{96, root, 3, false, true}, compared,
                                         own_network);
  // Selection, on the schedules' own network (rings, hypercubes and 2-D meshes: each type
  // instantiates every candidate's estimate by classes again); start-ups only make ties;
  // a shared-memory model, which select() at run time walks step by step.
  if constexpr (std::is_same_v<T, N> &&
                (std::is_same_v<T, Ring<>> || std::is_same_v<T, Hypercube<>> || std::is_same_v<T, Mesh<>>))
    for (const CostModel& model : {symmetry_models[0], symmetry_models[3], CostModel{.t_s = 1},
                                   CostModel{.t_s = 1, .t_w = 1e-3, .half_duplex = true, .lanes = 2, .t_sync = 0.5,
                                             .crossbar = true}})
      for (std::size_t root : {std::size_t{0}, topo.size() - 1})
        for (bool commutative : {true, false})
          (check_select_by_classes<all_collectives[I]>(topo, model, Problem{96, root, 3, commutative, false}), ...);
}

/// Every collective's algorithms built for `topo`, costed on `net`.
template <class T, class N>
std::size_t check_on(const T& topo, const N& net)
{
  std::size_t compared = 0;
  check_every_collective(topo, net, std::make_index_sequence<all_collectives.size()>{}, compared);
  return compared;
}

template <class T>
std::size_t check_on(const T& topo)
{
  return check_on(topo, topo);
}

/// One message r -> r + d from each rank of some runs of ranks (the senders), stating its
/// step as the runs of ranks that do the same (send, receive or both, and local work or
/// not): the steps that the estimate works out line by line on rings and 2-D tori
/// (line_worst) and on hypercubes (hops over runs), for any runs, not only those the
/// library's schedules make. The first run
/// also does local work, so that its own messages' time counts (not only the slowest's).
struct RunsShift {
  std::size_t p = 1, d = 1, blocks = 1;
  std::array<bool, 128> sends{}, works{};

  constexpr std::size_t size() const { return p; }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr ScanOp operation() const { return {p, false, false}; }
  constexpr bool receives(std::size_t r) const { return sends[(r + p - d) % p]; }
  constexpr std::size_t what(std::size_t r) const
  {
    return (sends[r] ? 1 : 0) + (receives(r) ? 2 : 0) + (works[r] ? 4 : 0);
  }
  constexpr Symmetry symmetry(std::size_t) const
  {
    Symmetry s = Symmetry::in(RankGroup::cyclic(p));
    std::size_t start = 0; // a rank whose left neighbour does something else (or 0)
    while (start < p && what(start) == what((start + p - 1) % p)) ++start;
    if (start == p) return what(0) == 0 ? s : s.with(RankClass::run(0, p));
    for (std::size_t i = 0; i < p;) {
      const std::size_t first = (start + i) % p;
      std::size_t n = 1;
      while (i + n < p && what((start + i + n) % p) == what(first)) ++n;
      if (what(first) != 0) s = s.with(RankClass::run(first, n));
      i += n;
    }
    return s;
  }
  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const
  {
    if (sends[r]) v.send({(r + d) % p, contiguous(Buffer::input, 0, blocks)});
    if (receives(r)) v.recv({(r + p - d) % p, contiguous(Buffer::output, 0, blocks)});
    if (works[r]) v.local({contiguous(Buffer::input, 0, blocks), contiguous(Buffer::output, 0, blocks)});
  }
};

/// RunsShift on `net` for every offset and the given runs of senders: the estimate by
/// classes against the walk, under every model. Returns the steps compared (a step of more
/// classes than a Symmetry holds is not stated, so not compared).
template <class N>
std::size_t check_runs(const N& net, std::initializer_list<std::pair<std::size_t, std::size_t>> runs)
{
  const std::size_t p = net.size();
  std::size_t compared = 0;
  for (std::size_t d = 1; d < p; ++d) {
    RunsShift s{p, d, 3, {}, {}};
    for (auto [first, n] : runs)
      for (std::size_t j = 0; j < n; ++j) s.sends[(first + j) % p] = true;
    for (std::size_t j = 0; j < runs.begin()->second; ++j) s.works[(runs.begin()->first + j) % p] = true;
    if (!s.symmetry(0).stated()) continue;
    for (const CostModel& model : symmetry_models) {
      const CostReport got = detail::estimate_by_classes(s, net, model, 96);
      const CostReport want = estimate_every_rank(s, net, model, 96);
      INFO(describe(net) << ", d = " << d << ", ports " << (model.ports == Ports::one ? "one" : "all"));
      CHECK(got.time == want.time);
      CHECK(got.congestion == want.congestion);
      CHECK(got.messages == want.messages);
    }
    ++compared;
  }
  return compared;
}

/// One message r -> r + d from each rank of a progression first, first + t, ... (n ranks),
/// which also do local work, received by the progression d further on (disjoint from the
/// senders): two classes, one sending. A binomial tree's step is one, from any root; the
/// estimate tells on a 2-D torus whether the senders are too far apart for their routes to
/// meet (progression_apart_on_torus), and otherwise works the step out another way.
struct ProgressionShift {
  std::size_t p = 1, first = 0, t = 1, n = 1, d = 1;

  constexpr std::size_t size() const { return p; }
  constexpr std::size_t num_steps() const { return 1; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr ScanOp operation() const { return {p, false, false}; }
  /// Whether r is a member of the progression that starts at `from`.
  constexpr bool in(std::size_t from, std::size_t r) const
  {
    const std::size_t off = (r + p - from) % p;
    return off % t == 0 && off / t < n;
  }
  constexpr Symmetry symmetry(std::size_t) const
  {
    return Symmetry::in(RankGroup::cyclic(p))
      .with(RankClass::progression(first, t, n))
      .with(RankClass::progression((first + d) % p, t, n));
  }
  template <class V>
  constexpr void visit(std::size_t r, std::size_t, V& v) const
  {
    if (in(first, r)) {
      v.send({(r + d) % p, contiguous(Buffer::input, 0, 2)});
      v.local({contiguous(Buffer::input, 0, 2), contiguous(Buffer::output, 0, 2)});
    }
    if (in((first + d) % p, r)) v.recv({(r + p - d) % p, contiguous(Buffer::output, 0, 2)});
  }
};

} // namespace

TEST_CASE("symmetric estimate: progressions of senders shifted along 2-D tori", "[cost][symmetry]")
{
  const std::pair<std::size_t, std::size_t> shapes[] = {{2, 3}, {3, 4}, {4, 3}, {4, 4}, {2, 8}, {8, 2}, {4, 8}, {8, 4}, {5, 6}, {6, 6}};
  for (auto [r, c] : shapes) {
    const std::size_t p = r * c;
    INFO("mesh " << r << " x " << c);
    const Mesh<> net{r, c};
    std::size_t compared = 0;
    for (std::size_t first : {std::size_t{0}, std::size_t{1}, c - 1, p / 2, p - 1})
      for (std::size_t t = 1; t < p; ++t) {
        const std::size_t most = (p - 1) / t + 1; // (n - 1) t < p: no member twice
        for (std::size_t n : {std::size_t{2}, std::size_t{3}, most / 2, most}) {
          if (n < 2 || n > most) continue;
          for (std::size_t d = 1; d < p; ++d) {
            const ProgressionShift s{p, first, t, n, d};
            bool disjoint = true;
            for (std::size_t q = 0; q < p && disjoint; ++q) disjoint = !(s.in(first, q) && s.in((first + d) % p, q));
            if (!disjoint) continue;
            for (const CostModel& model : symmetry_models) {
              const CostReport got = detail::estimate_by_classes(s, net, model, 96);
              const CostReport want = estimate_every_rank(s, net, model, 96);
              INFO("first " << first << ", t = " << t << ", n = " << n << ", d = " << d << ", ports "
                            << (model.ports == Ports::one ? "one" : "all"));
              CHECK(got.time == want.time);
              CHECK(got.congestion == want.congestion);
              CHECK(got.messages == want.messages);
            }
            ++compared;
          }
        }
      }
    CHECK(compared > p * p);
  }
}

TEST_CASE("symmetric estimate: rings, every p up to 9 and some larger", "[cost][symmetry]")
{
  for (std::size_t p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 32, 33}) {
    INFO("p = " << p);
    CHECK(check_on(Ring<>{p}) > 0);
    CHECK(check_on(Ring<>{p}, FullyConnected<>{p}) > 0);
  }
}

TEST_CASE("symmetric estimate: hypercubes, and hypercube schedules on rings", "[cost][symmetry]")
{
  for (std::size_t d : {0, 1, 2, 3, 4, 5}) {
    const auto h = Hypercube<>::of_dims(d);
    INFO("d = " << d);
    CHECK(check_on(h) > 0);
    CHECK(check_on(h, Ring<>{h.size()}) > 0);
    CHECK(check_on(Ring<>{h.size()}, h) > 0);
    CHECK(check_on(h, FullyConnected<>{h.size()}) > 0);
  }
}

TEST_CASE("symmetric estimate: stars on hypercubes, every routing and port model", "[cost][symmetry]")
{
  // The linear algorithms' steps (Symmetry::Star) on a hypercube are worked out from
  // E-cube's shape (SymmetricCost::hypercube_star), one-port store-and-forward included,
  // which the models above leave out.
  std::size_t compared = 0;
  for (std::size_t d : {0, 1, 2, 3, 4, 5, 6, 7}) {
    const auto h = Hypercube<>::of_dims(d);
    const std::size_t p = h.size();
    INFO("d = " << d);
    for (Routing routing : {Routing::cut_through, Routing::store_and_forward})
      for (Ports ports : {Ports::one, Ports::all}) {
        const CostModel model{1e-6, 1e-9, 5e-8, 1e-10, routing, ports};
        for (std::size_t root : {std::size_t{0}, p / 2, p - 1})
          for (double m : {0.0, 1.0, 37.0}) {
            const auto same = [&](const auto& s) {
              ++compared;
              CHECK(estimate(s, h, model, m) == estimate_every_rank(s, h, model, m));
            };
            same(BroadcastLinearSchedule(p, root, 2));
            same(ScatterLinearSchedule(p, root));
            same(GatherLinearSchedule(p, root));
            same(ReduceLinearSchedule(p, root, false, root == 0));
            same(AllgatherLinearSchedule(p, root == 0));
            same(ReduceScatterLinearSchedule(p, true));
            same(allreduce_linear_schedule(p, false, true));
            same(ScanLinearSchedule(p, root == 0));
          }
      }
  }
  CHECK(compared == 8 * 4 * 3 * 3 * 8);
}

TEST_CASE("symmetric estimate: meshes and tori, and their schedules on other networks", "[cost][symmetry]")
{
  const std::pair<std::size_t, std::size_t> shapes[] = {{1, 1}, {1, 5}, {2, 2}, {2, 3}, {3, 2}, {3, 3}, {2, 4}, {4, 4}, {3, 5}, {4, 8}, {8, 4}};
  for (auto [r, c] : shapes) {
    INFO("mesh " << r << " x " << c);
    const Mesh<> mesh{r, c};
    CHECK(check_on(mesh) > 0);
    CHECK(check_on(mesh, Ring<>{r * c}) > 0);
    CHECK(check_on(Ring<>{r * c}, mesh) > 0);
    if (std::has_single_bit(r * c)) CHECK(check_on(mesh, Hypercube<>::of_size(r * c)) > 0);
  }
  CHECK(check_on(Torus{2, 3, 2}) > 0);
  CHECK(check_on(Torus{2, 2, 4}) > 0);
  CHECK(check_on(Torus{2, 2, 2, 2}) > 0);
  CHECK(check_on(Torus{3, 1, 3}) > 0);
}

TEST_CASE("symmetric estimate: runs of senders shifted along rings and 2-D tori", "[cost][symmetry]")
{
  const std::pair<std::size_t, std::size_t> shapes[] = {{2, 3}, {3, 4}, {4, 3}, {4, 5}, {5, 4}, {3, 7}, {6, 6}, {2, 8}};
  for (auto [r, c] : shapes) {
    const std::size_t p = r * c;
    INFO("mesh " << r << " x " << c);
    const Mesh<> net{r, c};
    std::size_t compared = 0;
    for (std::size_t first = 0; first < p; ++first)
      for (std::size_t n : {std::size_t{1}, std::size_t{2}, c - 1, c, c + 1, p / 2, p - c, p - 1}) {
        if (n == 0 || n >= p) continue;
        compared += check_runs(net, {{first, n}});
        compared += check_runs(Ring<>{p}, {{first, n}});
        // A second run somewhere else (overlapping or not: the senders are the union).
        compared += check_runs(net, {{first, n}, {(first + n + 1 + first % 3) % p, 1 + (first + n) % c}});
      }
    CHECK(compared > p * p);
  }
  // Hypercubes: every family r -> r + d shares no link under E-cube routing; the hops over
  // a run are worked out per run (d a power of two) or from a table (runs above 64 ranks).
  for (std::size_t p : {8, 32, 128}) {
    INFO("hypercube of " << p);
    const auto net = Hypercube<>::of_size(p);
    std::size_t compared = 0;
    for (std::size_t first : {std::size_t{0}, std::size_t{1}, p / 2 - 1, p / 2, p - 3, p - 1})
      for (std::size_t n : {std::size_t{1}, std::size_t{3}, p / 4 + 1, p / 2, p - 2, std::size_t{65}, std::size_t{100}}) {
        if (n >= p) continue;
        compared += check_runs(net, {{first, n}});
        compared += check_runs(net, {{first, n}, {(first + n + 2) % p, 1 + first % 5}});
      }
    CHECK(compared > 4 * p);
  }
}

/// Every rank sends one message to r XOR 2^j for each bit j of a mask, with blocks that
/// differ from family to family: the steps the estimate works out ring by ring on a torus of
/// power-of-two rings (cost/xor_line.hpp; the all-port hypercube all-to-all's rounds are all
/// the bits), for any set of bits. Steps 0 and 1 have the same families and other blocks
/// (the loads are kept between them), step 2 the other bits; step 0 also has local work.
struct XorFamiliesStep {
  std::size_t p = 1, bits = 0;

  constexpr std::size_t size() const { return p; }
  constexpr std::size_t num_steps() const { return 3; }
  constexpr std::size_t scratch_blocks() const { return 0; }
  constexpr ScanOp operation() const { return {p, false, false}; }
  constexpr Symmetry symmetry(std::size_t) const { return Symmetry::uniform(RankGroup::bits(p)); }
  template <class V>
  constexpr void visit(std::size_t r, std::size_t k, V& v) const
  {
    const std::size_t mask = k < 2 ? bits : (p - 1) & ~bits;
    for (std::size_t j = 0; (std::size_t{1} << j) < p; ++j) {
      const std::size_t g = std::size_t{1} << j;
      if ((mask & g) == 0) continue;
      const std::size_t blocks = 1 + (j * (k + 2)) % 3;
      v.send({r ^ g, contiguous(Buffer::input, 0, blocks)});
      v.recv({r ^ g, contiguous(Buffer::output, 0, blocks)});
    }
    if (k == 0) v.local({contiguous(Buffer::input, 0, 2), contiguous(Buffer::output, 0, 2)});
  }
};

TEST_CASE("symmetric estimate: XOR partners on tori of power-of-two rings", "[cost][symmetry]")
{
  auto check = [](const auto& net) {
    const std::size_t p = net.size();
    INFO(describe(net));
    for (std::size_t bits = 0; bits < p; ++bits) {
      const XorFamiliesStep s{p, bits};
      for (const CostModel& model : symmetry_models) {
        const CostReport got = detail::estimate_by_classes(s, net, model, 96);
        const CostReport want = estimate_every_rank(s, net, model, 96);
        INFO("bits " << bits << ", ports " << (model.ports == Ports::one ? "one" : "all") << ", routing "
                     << (model.routing == Routing::cut_through ? "cut-through" : "store-and-forward"));
        CHECK(got.time == want.time);
        CHECK(got.congestion == want.congestion);
        CHECK(got.messages == want.messages);
        CHECK(got.steps == want.steps);
        CHECK(got.words == want.words);
      }
    }
  };
  for (std::size_t p : {2, 4, 8, 16, 32, 64}) check(Ring<>{p});
  const std::pair<std::size_t, std::size_t> shapes[] = {{2, 2}, {2, 4}, {4, 2}, {4, 4}, {4, 8}, {8, 4}, {2, 16}, {8, 8}};
  for (auto [r, c] : shapes) check(Mesh<>{r, c});
  check(Torus{2, 2, 4});
  check(Torus{4, 2, 8});
  check(Torus{2, 2, 2, 2});
}
