#pragma once
// Cost read from the schedule that runs. Per step:
//  - every message is routed over the topology (its next_hop), hop by hop;
//  - messages that use the same directed link in the same step share its bandwidth: the
//    t_w term of a message is multiplied by the most messages on any link of its route.
//    Under one-port a rank's own messages go out one after another, so they never meet on
//    a link: there a link's load counts the distinct ranks sending over it;
//  - one-port: a rank's sends serialise, and so do its receives (a send and a receive
//    overlap); all-port: a rank's messages all proceed at once;
//  - a rank's local operations run after its exchanges (schedule.hpp) and cost t_r per
//    word moved or combined, and so does combining a received message into place (a
//    receive with Combine::left/right: a pass over the words like a local combine); a
//    rank's step time is its exchange time plus this local time;
//  - the step takes as long as its slowest rank, and the steps add up;
//  - beyond the seeds (model.hpp): under half_duplex the word times of a rank's sends
//    and receives add up (their start-ups still overlap); a rank with any message in a
//    step adds t_sync (its wait for its partners); with lanes < p, a step takes at least
//    t_sync plus the sum of every rank's step time without it divided by lanes (ranks
//    time-sharing cores: their work queues, their waits overlap); under crossbar every
//    message takes one hop and no two share a link; a message sent from the output or
//    scratch adds t_fresh per word (the lower bounds select() sums leave it out: a bound
//    without it is still a bound).
// A rank's messages are summed as integers (messages, hops, words x load), so its time
// does not depend on the order they come in (step_cost.hpp has the arithmetic).
// The seeds' closed forms (closed_forms.hpp) are tests of it.
//
// How a step is read: a schedule that states the symmetry of its steps (schedule.hpp,
// Symmetry) is visited once per class of ranks and the step's cost worked out from the
// classes (symmetric_cost.hpp, detail::estimate_by_classes): exactly the numbers of the
// rank-by-rank walk, which estimate_every_rank() keeps as the reference, and which every
// other step gets (issue #12: this is what makes compile-time selection on 1024 ranks fit
// the compilers' constant evaluation limits). At run time estimate() reads the schedule
// through function pointers (WalkScheduleRef), so the evaluation is compiled once per
// topology type, whatever the schedule, and so does select() at run time; a collective
// called without an algorithm walks every rank, whose one body per topology type is
// smaller still to compile, and whose models (the transports': crossbar, lanes, ...) the
// evaluation by classes does not cover anyway. The walk collects a step's messages in one
// flat list and routes them on the topology (routes.hpp: routes from the topology's
// structure, loads counted only in steps that share a link).

#include <collectives/cost/model.hpp>
#include <collectives/cost/step_cost.hpp>
#include <collectives/cost/symmetric_cost.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/topology/concepts.hpp>
#include <collectives/topology/hypercube.hpp>
#include <collectives/topology/torus.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <limits>
#include <optional>

namespace collectives {

/// A schedule's predicted time and what it meets on the way.
struct CostReport {
  double time = 0;            ///< predicted time
  std::size_t steps = 0;      ///< steps with at least one message
  std::size_t messages = 0;   ///< messages sent, over all ranks and steps
  /// Most messages sharing one directed link in one step (0: no message); with one port
  /// the most sending ranks (a rank's messages on one link take turns, not share it).
  std::size_t congestion = 0;
  double words = 0;           ///< words sent, over all ranks and steps
  friend constexpr bool operator==(const CostReport&, const CostReport&) = default;
};

/// The largest block size estimate() accepts, in words (a guard against overflow to inf).
inline constexpr double max_block_words = 1e15;

namespace detail {

/// Sends every op of one rank's step to a MessageStep.
template <class Topo>
struct WalkVisitor {
  MessageStep<Topo>* step;
  std::size_t rank;
  bool step_fresh = false; // the model has t_fresh: mark messages not sent from the input
  constexpr void send(const SendOp& op)
  {
    step->message(op.peer, op.blocks.count, step_fresh && op.blocks.buffer != Buffer::input);
  }
  constexpr void recv(const RecvOp& op)
  {
    if (op.combine != Combine::copy) step->local(rank, op.blocks.count);
  }
  constexpr void local(const LocalOp& op) { step->local(rank, op.from.count); }
};

/// What every estimate checks first (S: a schedule or a WalkScheduleRef).
template <class S, topology T>
constexpr void check_estimate_args(const S& s, const T& topo, const CostModel& model, double m)
{
  model.validated();
  expect(m >= 0 && m <= max_block_words,
          "collectives::estimate: m (words per block) must be finite, non-negative and at most 1e15");
  expect(s.size() == topo.size(), "collectives::estimate: the schedule and the topology differ in size");
}

/// Step k, rank by rank (S: a schedule or a WalkScheduleRef).
template <class S, topology T>
constexpr StepTally walk_step(const S& s, std::size_t k, MessageStep<T>& step)
{
  step.begin();
  for (std::size_t r = 0; r < s.size(); ++r) {
    step.source(r);
    WalkVisitor<T> v{&step, r, step.prices_fresh()};
    s.visit(r, k, v);
  }
  return step.finish();
}

/// The most links that leave any node of `topo` (0: not known), for the all-port bound.
template <class T>
constexpr std::size_t out_links(const T&)
{
  return 0;
}
template <std::size_t D>
constexpr std::size_t out_links(const Hypercube<D>& h)
{
  return h.ndims();
}
template <std::size_t... Z>
constexpr std::size_t out_links(const Torus<Z...>& t)
{
  std::size_t n = 0; // a ring of two is one link each way (its minus neighbour is the plus one)
  for (std::size_t i = 0; i < t.ndims(); ++i) n += t.extent(i) > 2 ? 2 : t.extent(i) - 1;
  return n;
}

/// A lower bound of a rank's step time from its own messages alone: each over its route's
/// hops (the topology's distance) with a worst load of 1, its local work as the walk
/// counts it. All-port, also the load its own messages put on its links: n messages out
/// (or in) over at most L links share one of them n / L at a time, rounded up, so one
/// has at least that load (the fewest blocks and hops of the rank's messages stand for its
/// size and route). The step's time, the slowest rank's, is at least this (a rank's sums
/// have fewer hops and units than in the walk, and the arithmetic is the same, so the bound
/// holds in floating point too).
template <class T>
struct BoundVisitor {
  const T* topo;
  const CostModel* model;
  double m;
  std::size_t rank;
  bool one_hop = false; // count every message as one hop (at least its distance): no distance()
  PortBusy out{}, in{};
  std::size_t blocks = 0; // local work
  struct Shared {         // all-port: a rank's messages over its links
    std::size_t n = 0, blocks = 0, hops = 0;
  } out_shared{}, in_shared{};

  constexpr void send(const SendOp& op) { add(out, out_shared, rank, op.peer, op.blocks.count); }
  constexpr void recv(const RecvOp& op)
  {
    add(in, in_shared, op.peer, rank, op.blocks.count);
    if (op.combine != Combine::copy) blocks += op.blocks.count;
  }
  constexpr void local(const LocalOp& op) { blocks += op.from.count; }
  /// (Not under half_duplex: there the walk's busy time is not the larger of the two.)
  constexpr double time() const
  {
    PortBusy o = out, i = in;
    if (model->ports == Ports::all && !model->crossbar) {
      const std::size_t links = out_links(*topo);
      loaded(o, out_shared, links);
      loaded(i, in_shared, links);
    }
    return rank_step_time(*model, m, port_busy_time(*model, m, o, i), blocks);
  }

private:
  constexpr void add(PortBusy& busy, Shared& shared, std::size_t from, std::size_t to, std::size_t b)
  {
    if (from >= topo->size() || to >= topo->size()) return; // (the walk reports it)
    const std::size_t hops = model->crossbar || one_hop ? std::size_t{from != to} : topo->distance(from, to);
    add_unloaded(busy, *model, m, b, hops);
    if (hops == 0 || model->ports != Ports::all) return; // (no link taken; one-port sums anyway)
    shared.blocks = shared.n == 0 || b < shared.blocks ? b : shared.blocks;
    shared.hops = shared.n == 0 || hops < shared.hops ? hops : shared.hops;
    ++shared.n;
  }
  /// The slowest message all-port is at least one of `shared.n` over `links` links.
  constexpr void loaded(PortBusy& busy, const Shared& shared, std::size_t links) const
  {
    if (links == 0 || shared.n <= links) return;
    const std::size_t load = (shared.n + links - 1) / links;
    const double t = sum_time(*model, m, 1, shared.hops, message_units(model->routing, shared.blocks, load, shared.hops));
    busy.most = t > busy.most ? t : busy.most;
  }
};

/// A lower bound of step k's time, from one visit per class when the schedule states the
/// step's symmetry (every kind of rank), else from rank 0 and the rank the schedule names
/// as its busiest (s.busiest_rank(k), when it has one): a few visits, no routing.
/// With `one_hop`, a weaker bound that does not ask the topology for distances.
template <class S, topology T>
constexpr double step_lower_bound(const S& s, std::size_t k, const T& topo, const CostModel& model, double m,
                                  bool one_hop = false)
{
  double bound = 0;
  const auto of_rank = [&](std::size_t r) {
    BoundVisitor<T> v{&topo, &model, m, r, one_hop};
    s.visit(r, k, v);
    bound = std::max(bound, v.time());
  };
  if constexpr (symmetric_schedule<S>) {
    const Symmetry sym = s.symmetry(k);
    if (sym.stated() && sym.group.p == s.size()) {
      for (std::size_t c = 0; c < sym.classes; ++c)
        if (sym.cls[c].rep < s.size() && sym.cls[c].size(sym.group) > 0) of_rank(sym.cls[c].rep);
      if (sym.star.on && sym.star.root < s.size()) of_rank(sym.star.root); // (every other rank: one message)
      return bound;
    }
  }
  if (s.size() > 0) of_rank(0);
  if constexpr (requires { { s.busiest_rank(k) } -> std::convertible_to<std::size_t>; }) {
    const std::size_t r = s.busiest_rank(k);
    if (r != 0 && r < s.size()) of_rank(r);
  }
  return bound;
}

struct ReportSum {
  CostReport report;
  std::size_t blocks = 0;
  constexpr void add(const StepTally& t)
  {
    report.time += t.time;
    report.steps += t.messages > 0 ? 1u : 0u;
    report.messages += t.messages;
    report.congestion = std::max(report.congestion, t.congestion);
    blocks += t.blocks;
  }
  constexpr CostReport done(double m)
  {
    report.words = static_cast<double>(blocks) * m;
    return report;
  }
};

} // namespace detail

namespace detail {
/// estimate() read by classes: a step whose symmetry the schedule states is visited once
/// per class (symmetric_cost.hpp), every other step rank by rank. The same CostReport as
/// estimate_every_rank(), bit for bit (S: a schedule or a WalkScheduleRef). With a finite
/// `beyond`, it stops at the first step whose time so far exceeds it, as walk_every_rank.
template <class S, topology T>
constexpr CostReport estimate_by_classes_of(const S& s, const T& topo, const CostModel& model, double m,
                                            double beyond = std::numeric_limits<double>::infinity())
{
  detail::check_estimate_args(s, topo, model, m);
  detail::MessageStep<T> step(topo, model, m);
  detail::ReportSum sum;
  if constexpr (requires(std::size_t k) {
                  { s.symmetry(k) } -> std::convertible_to<Symmetry>;
                }) {
    detail::SymmetricCost<T> sym(topo, model, m, step);
    for (std::size_t k = 0; k < s.num_steps() && !(sum.report.time > beyond); ++k) {
      detail::StepTally t;
      if (!sym.step(s, k, t)) t = detail::walk_step(s, k, step);
      sum.add(t);
    }
  } else {
    for (std::size_t k = 0; k < s.num_steps() && !(sum.report.time > beyond); ++k)
      sum.add(detail::walk_step(s, k, step));
  }
  return sum.done(m);
}

/// estimate_by_classes_of() of a schedule: what estimate() runs in constant evaluation.
template <schedule S, topology T>
constexpr CostReport estimate_by_classes(const S& s, const T& topo, const CostModel& model, double m)
{
  return estimate_by_classes_of(s, topo, model, m);
}

/// The evaluation by classes of schedule s at run time, through WalkScheduleRef (defined
/// below): what estimate() and select() run there.
template <schedule S, topology T>
CostReport by_classes_at_run_time(const S& s, const T& topo, const CostModel& model, double m, double beyond);
} // namespace detail

template <schedule S, topology T>
constexpr CostReport estimate_every_rank(const S& s, const T& topo, const CostModel& model, double m);

/// Predicted time of schedule s run on topology `topo` (the same size; the schedule's
/// ranks are the topology's nodes) under `model`, for blocks of `m` words (a chunked
/// schedule's blocks are its pieces: pass the piece size). See the top of this header for
/// the rules. Requirements: model valid (CostModel::validated), 0 <= m <= max_block_words,
/// s.size() == topo.size(); std::invalid_argument otherwise (a compile error in constant
/// evaluation). Cost: for a step whose symmetry the schedule states, one visit per class
/// (a few) and, on a network its translations preserve, O(messages of a class) work; for
/// every other step O(messages x hops) time (every rank visited); O(p + links) memory; no
/// O(p^2). At run time the evaluation is compiled once per topology type, whatever the
/// schedule (the schedule is read through function pointers).
template <schedule S, topology T>
constexpr CostReport estimate(const S& s, const T& topo, const CostModel& model, double m)
{
  // The builtin, not std::is_constant_evaluated(): folded by the front end even at -O0, so
  // a run-time caller does not emit the typed evaluation by classes.
  if (__builtin_is_constant_evaluated()) return detail::estimate_by_classes(s, topo, model, m);
  if constexpr (symmetric_schedule<S>)
    return detail::by_classes_at_run_time(s, topo, model, m, std::numeric_limits<double>::infinity());
  else
    return estimate_every_rank(s, topo, model, m);
}

namespace detail {

/// s->symmetry(k) for the schedule type S behind `s` (WalkScheduleRef's view of it).
template <class S>
Symmetry symmetry_thunk(const void* s, std::size_t k)
{
  return static_cast<const S*>(s)->symmetry(k);
}

/// A schedule seen through function pointers, for the estimates at run time: every
/// schedule is walked (and evaluated by classes) by one body per topology type, so a
/// translation unit that selects among many algorithms compiles the walk once, not once
/// per candidate. A rank's step is collected through visit_thunk (the executor's visit of
/// the schedule, which such a translation unit compiles anyway to run the candidate it
/// picks) and replayed into the visitor: the counts the estimates add up are the same in
/// any order of sends, receives and local ops, and each kind keeps its order. (Constant
/// evaluation cannot cast from void*: it keeps the typed path.)
template <class T>
class WalkScheduleRef {
public:
  /// Schedule s, read rank by rank (symmetry() states none: a selection's walk does not
  /// compile the schedules' symmetry()).
  template <class S>
  explicit WalkScheduleRef(const S& s)
    : object_(&s), size_(s.size()), steps_(s.num_steps()), visit_(&visit_thunk<S>)
  {
  }
  /// Schedule s with the symmetry it states (S: a symmetric_schedule), for the evaluation
  /// by classes.
  template <class S>
  static WalkScheduleRef with_symmetry(const S& s)
  {
    WalkScheduleRef ref(s);
    ref.symmetry_ = &symmetry_thunk<S>;
    return ref;
  }
  /// A schedule already seen through its visit (a schedule of `size` ranks and `steps` steps).
  WalkScheduleRef(const void* object, std::size_t size, std::size_t steps,
                  void (*visit_fn)(const void*, std::size_t, std::size_t, StepOps&))
    : object_(object), size_(size), steps_(steps), visit_(visit_fn)
  {
  }
  std::size_t size() const { return size_; }
  std::size_t num_steps() const { return steps_; }
  /// The schedule's symmetry of step k; none stated when the schedule states none (the
  /// evaluation by classes then walks the step rank by rank).
  Symmetry symmetry(std::size_t k) const { return symmetry_ != nullptr ? symmetry_(object_, k) : Symmetry{}; }
  template <class V>
  void visit(std::size_t r, std::size_t step, V& v) const
  {
    // One rank's step; the thread's lists keep their capacity, so a warmed-up thread's
    // estimates allocate nothing here (the estimates visit ranks one at a time, never
    // nested).
    static thread_local StepOps ops;
    ops.sends.clear();
    ops.recvs.clear();
    ops.locals.clear();
    visit_(object_, r, step, ops);
    for (const SendOp& op : ops.sends) v.send(op);
    for (const RecvOp& op : ops.recvs) v.recv(op);
    for (const LocalOp& op : ops.locals) v.local(op);
  }

private:
  const void* object_;
  std::size_t size_, steps_;
  void (*visit_)(const void*, std::size_t, std::size_t, StepOps&);
  Symmetry (*symmetry_)(const void*, std::size_t) = nullptr;
};

/// estimate_every_rank()'s body, for a schedule or a WalkScheduleRef. With a finite
/// `beyond`, the walk stops at the first step whose time so far exceeds it (the report then
/// covers the steps walked, and its time exceeds `beyond`): a selection passes over a
/// candidate dearer than its best so far without walking the rest of it.
template <class S, topology T>
constexpr CostReport walk_every_rank(const S& s, const T& topo, const CostModel& model, double m,
                                     double beyond = std::numeric_limits<double>::infinity())
{
  detail::MessageStep<T> step(topo, model, m);
  detail::ReportSum sum;
  for (std::size_t k = 0; k < s.num_steps(); ++k) {
    sum.add(detail::walk_step(s, k, step));
    if (sum.report.time > beyond) break;
  }
  return sum.done(m);
}

/// The topology type a run-time walk uses for T: the library's tori and hypercubes walk as
/// their all-dynamic twins (the same network: static extents only turn into stored ones),
/// so a program walks one body per family of topology, not per static shape, and the
/// compiled mode compiles those bodies once (cost/compiled_once.hpp); any other
/// topology walks as itself.
template <class T>
struct walk_topology {
  using type = T;
};
template <std::size_t... Z>
struct walk_topology<Torus<Z...>> {
  using type = Torus<(static_cast<void>(Z), dynamic_extent)...>;
};
template <std::size_t D>
struct walk_topology<Hypercube<D>> {
  using type = Hypercube<>;
};
template <class T>
using walk_topology_t = typename walk_topology<T>::type;

/// X(T) for every all-dynamic twin the library's topologies walk as, in namespace
/// collectives (the one list: the compiled mode compiles the walks, and the default calls'
/// selection, once for each; cost/compiled_once.hpp, collective/chosen.hpp).
#define COLLECTIVES_LIBRARY_WALK_TOPOLOGIES(X)                                                            \
  X(Ring<>)                                                                                               \
  X(Mesh<>)                                                                                               \
  X(Torus<dynamic_extent, dynamic_extent, dynamic_extent>)                                                \
  X(Hypercube<>)

/// The run-time walk: not inline, so that the compiled mode's declarations of it for the
/// library's dynamic topologies keep translation units from compiling it.
template <class T>
CostReport walk_every_rank_at_run_time(const WalkScheduleRef<T>& s, const T& topo, const CostModel& model, double m,
                                       double beyond)
{
  return walk_every_rank(s, topo, model, m, beyond);
}

/// estimate() at run time: the evaluation by classes, one body per topology type for
/// every schedule (it reads the schedule through WalkScheduleRef's visit and symmetry), so
/// that run-time estimates of large symmetric schedules take milliseconds instead of a
/// walk of every message, and a caller compiles it once, not once per schedule type (not
/// inline: the compiled mode compiles it once for the library's dynamic topologies).
template <class T>
CostReport estimate_by_classes_at_run_time(const WalkScheduleRef<T>& s, const T& topo, const CostModel& model,
                                           double m, double beyond)
{
  return estimate_by_classes_of(s, topo, model, m, beyond);
}

} // namespace detail

/// estimate() visiting every rank of every step, whatever the schedule states about its
/// symmetry: the reference the symmetric evaluations are tested against (they give the
/// same CostReport, bit for bit), and what a collective called without an algorithm
/// selects with. Requirements and errors as estimate(); O(steps x p) visits.
template <schedule S, topology T>
constexpr CostReport estimate_every_rank(const S& s, const T& topo, const CostModel& model, double m)
{
  detail::check_estimate_args(s, topo, model, m);
  // The builtin, not std::is_constant_evaluated(): folded by the front end even at -O0,
  // so an unoptimised build does not emit both paths.
  if (__builtin_is_constant_evaluated()) return detail::walk_every_rank(s, topo, model, m);
  using W = detail::walk_topology_t<T>;
  return detail::walk_every_rank_at_run_time(detail::WalkScheduleRef<W>(s), W(topo), model, m,
                                             std::numeric_limits<double>::infinity());
}

namespace detail {
/// estimate_every_rank()'s time at run time, or a time above `beyond` once the steps
/// walked add up past it (walk_every_rank): what a run-time selection needs of a
/// candidate that may lose.
template <schedule S, topology T>
double time_unless_beyond(const S& s, const T& topo, const CostModel& model, double m, double beyond)
{
  detail::check_estimate_args(s, topo, model, m);
  using W = detail::walk_topology_t<T>;
  return detail::walk_every_rank_at_run_time(detail::WalkScheduleRef<W>(s), W(topo), model, m, beyond).time;
}

/// time_unless_beyond() read by classes when the schedule states its symmetry (what a
/// select() at run time runs: the same times, bit for bit, and the pick; the evaluation is
/// compiled once per topology type).
template <schedule S, topology T>
double time_by_classes_unless_beyond(const S& s, const T& topo, const CostModel& model, double m, double beyond)
{
  if constexpr (symmetric_schedule<S>) return by_classes_at_run_time(s, topo, model, m, beyond).time;
  else return time_unless_beyond(s, topo, model, m, beyond);
}

template <schedule S, topology T>
CostReport by_classes_at_run_time(const S& s, const T& topo, const CostModel& model, double m, double beyond)
{
  using W = walk_topology_t<T>;
  return estimate_by_classes_at_run_time(WalkScheduleRef<W>::with_symmetry(s), W(topo), model, m, beyond);
}
} // namespace detail

/// estimate(), or std::nullopt when the time is known to be at least `limit` without
/// working it out exactly. Two things show it early:
///  - the steps' times add up in order and none is negative, so once the steps so far
///    reach `limit` the rest are never read (a ring algorithm's p - 1 steps against a
///    tree's log p);
///  - a step that would be enumerated message by message or walked rank by rank (the
///    all-port hypercube alltoall on a ring, a tree's wide steps on a mesh, a schedule
///    that states no symmetry) is first given a lower bound from a few ranks' own
///    messages: their hops, a load of 1 (or what the message's family alone gives), no
///    routing. Only if the bounds do not reach `limit` is the estimate worked out exactly,
///    from the start.
/// What select() uses in constant evaluation to pass over candidates that cannot win; the
/// time returned, when one is, is estimate()'s.
template <schedule S, topology T>
constexpr std::optional<CostReport> estimate_unless_at_least(const S& s, const T& topo, const CostModel& model,
                                                             double m, double limit);

namespace detail {
/// What a schedule that promises a message of b blocks in every step (s.blocks_every_step(),
/// from s.first_message_step() on) says of its time before any step is visited: no such
/// step is cheaper than that message alone (one hop, no load, its rank's wait), whatever
/// the model; and its first and last promised steps no cheaper than their lower bounds
/// (step_lower_bound: a plain ring pipeline's root sends both ways in its first step, or
/// receives from both sides in its last). `one` is 0 without a promise.
struct StepPromise {
  double one = 0;         ///< a promised step's least time
  std::size_t from = 0;   ///< the first promised step
  std::size_t steps = 0;  ///< the schedule's steps
  double first_more = 0;  ///< what the first promised step costs beyond `one`, at least
  double last_more = 0;   ///< the same of the last step (0 when it is the first)
  /// The least time of the steps from `next` on.
  constexpr double rest(std::size_t next) const
  {
    const std::size_t k = next > from ? next : from;
    if (!(one > 0) || k >= steps) return 0;
    return static_cast<double>(steps - k) * one + (k == from ? first_more : 0) + last_more;
  }
};

template <schedule S, topology T>
constexpr StepPromise step_promise(const S& s, const T& topo, const CostModel& model, double m)
{
  StepPromise p{0, 0, s.num_steps(), 0, 0};
  if constexpr (requires { { s.blocks_every_step() } -> std::convertible_to<std::size_t>; }) {
    if (const std::size_t b = s.blocks_every_step(); b > 0) {
      p.one = model.t_s + model.t_h + model.t_w * (static_cast<double>(b) * m) + model.t_sync;
      if constexpr (requires { { s.first_message_step() } -> std::convertible_to<std::size_t>; })
        p.from = s.first_message_step();
      // (Not under half_duplex, whose busy time step_lower_bound does not follow.)
      if (p.from < p.steps && !model.half_duplex) {
        const auto more = [&](std::size_t k) { return std::max(0.0, step_lower_bound(s, k, topo, model, m) - p.one); };
        p.first_more = more(p.from);
        if (p.steps - 1 > p.from) p.last_more = more(p.steps - 1);
      }
    }
  }
  return p;
}

/// estimate_unless_at_least(); with `equal_passes`, std::nullopt only when the time is
/// known to exceed `limit` (for a candidate that would win a tie).
/// Without `equal_passes`, a sum that holds lower bounds also passes a candidate over when
/// it comes within 1e-12 of `limit`: the bound and the limit are sums of the same terms in
/// another order (the linear alltoall's one step of p - 1 messages against the pairwise
/// exchange's p - 1 steps), equal but for rounding, and the candidate cannot be cheaper
/// beyond rounding; working it out exactly could take O(p^2) messages.
template <schedule S, topology T>
constexpr std::optional<CostReport> estimate_unless_beyond(const S& s, const T& topo, const CostModel& model, double m,
                                                           double limit, bool equal_passes)
{
  const auto beyond = [&](double t) { return equal_passes ? t > limit : t >= limit; };
  const auto bound_beyond = [&](double t) { return beyond(t) || (!equal_passes && t >= limit - 1e-12 * limit); };
  detail::check_estimate_args(s, topo, model, m);
  const std::size_t n = s.num_steps(); // (asked once: a pipeline's is a loop over its rings)
  // A schedule's promise of a message in every step bounds it before any visit, and after
  // each step the steps left (a ring scatter on a mesh: its pipeline's steps through a
  // row's end take two hops, which the steps left, each bounded, soon show).
  constexpr bool promises = requires { { s.blocks_every_step() } -> std::convertible_to<std::size_t>; };
  const StepPromise promise = step_promise(s, topo, model, m);
  // A schedule whose steps from some step on are alike (s.steps_alike_from()): each of the
  // steps left costs what the last one did (the all-port all-to-all's 511 rounds after
  // its first: passed over after two of them, not after hundreds).
  constexpr bool alike = requires { { s.steps_alike_from() } -> std::convertible_to<std::size_t>; };
  std::size_t alike_from = n;
  if constexpr (alike) // (t_fresh prices where a message is read from: not promised alike)
    if (model.t_fresh == 0) alike_from = s.steps_alike_from();
  // (For a candidate that would win a tie, scaled down a hair: a sum in another order may
  // round above the estimate's total. For one that would lose it, bound_beyond's 1e-12 is
  // the tie: scaled too, the two cancel, and a ring pipeline whose exact sum of 1023 equal
  // steps rounds above their product was worked out to the end to tie with its twin.)
  const auto rest_beyond = [&](double done, std::size_t next, double last) {
    double rest = promise.rest(next); // a lower bound of steps next .. n - 1
    if (next > alike_from && next < n) rest = std::max(rest, static_cast<double>(n - next) * last);
    return rest > 0 && bound_beyond(equal_passes ? (done + rest) * (1 - 1e-12) : done + rest);
  };
  if (promise.one > 0 && rest_beyond(0.0, 0, 0.0)) return std::nullopt;
  detail::MessageStep<T> step(topo, model, m);
  detail::ReportSum sum;
  // (Rounding is monotone: a partial sum of times, or of lower bounds of them, is no more
  // than the estimate's total.)
  if constexpr (symmetric_schedule<S>) {
    detail::SymmetricCost<T> sym(topo, model, m, step);
    sym.bound_only(true);
    bool bounded = false; // a step walked rank by rank was only bounded
    for (std::size_t k = 0; k < n; ++k) {
      detail::StepTally t;
      if (!sym.step(s, k, t)) {
        bounded = !model.half_duplex; // (whose busy time the bound does not follow)
        if (bounded) t.time = detail::step_lower_bound(s, k, topo, model, m);
        else t = detail::walk_step(s, k, step);
      }
      sum.add(t);
      if (bounded || sym.inexact() ? bound_beyond(sum.report.time) : beyond(sum.report.time)) return std::nullopt;
      if constexpr (promises || alike)
        if (rest_beyond(sum.report.time, k + 1, t.time)) return std::nullopt;
    }
    if (!sym.inexact() && !bounded) return sum.done(m);
    return detail::estimate_by_classes(s, topo, model, m);
  } else {
    // Every step bounded first (a few visits, no routing; a one-step schedule first without
    // distances, which is what passes over a linear scatter's p - 1 messages at p = 1024
    // within the compilers' limits), then walked rank by rank.
    if (n == 1 && !model.half_duplex && bound_beyond(detail::step_lower_bound(s, 0, topo, model, m, true)))
      return std::nullopt;
    double bound = 0;
    for (std::size_t k = 0; k < n && !model.half_duplex; ++k) {
      bound += detail::step_lower_bound(s, k, topo, model, m);
      if (bound_beyond(bound)) return std::nullopt;
    }
    for (std::size_t k = 0; k < n; ++k) {
      const detail::StepTally t = detail::walk_step(s, k, step);
      const double last = t.time;
      sum.add(t);
      if (beyond(sum.report.time)) return std::nullopt;
      if constexpr (promises || alike)
        if (rest_beyond(sum.report.time, k + 1, last)) return std::nullopt;
    }
    return sum.done(m);
  }
}
} // namespace detail

template <schedule S, topology T>
constexpr std::optional<CostReport> estimate_unless_at_least(const S& s, const T& topo, const CostModel& model,
                                                             double m, double limit)
{
  return detail::estimate_unless_beyond(s, topo, model, m, limit, false);
}

/// Just the time: estimate(s, topo, model, m).time.
template <schedule S, topology T>
constexpr double predicted_time(const S& s, const T& topo, const CostModel& model, double m)
{
  return estimate(s, topo, model, m).time;
}

} // namespace collectives
