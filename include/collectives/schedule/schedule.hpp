#pragma once
// The one representation of an algorithm. A schedule says, for a rank and a step, which
// blocks go to which partner, which come in from which partner (copied or combined), and
// which move locally afterwards. It says so through a visitor, so nothing is stored:
//
//   s.size()            number of ranks p
//   s.num_steps()       number of steps, the same on every rank
//   s.scratch_blocks()  scratch blocks each rank needs
//   s.operation()       the operation's spec (its buffers and postcondition)
//   s.visit(r, k, v)    calls v.send(SendOp), v.recv(RecvOp), v.local(LocalOp) for rank r
//                       in step k. Sends and receives of one step proceed together; locals
//                       run after them, in order.
//
// Optionally (see Symmetry below):
//
//   s.symmetry(k)       how the ranks of step k relate: which ranks do what some other
//                       rank does, translated; the cost estimate then visits one rank per
//                       class instead of every rank.
//   s.busiest_rank(k)   for a step that states no symmetry: a rank that takes longest in
//                       it (a linear scatter's root), which a lower bound of the step then
//                       visits: compile-time select() passes over a candidate so bounded.
//   s.blocks_every_step()  b > 0 when in every step some rank sends a message of at least
//                       b blocks to another rank (0: no such promise). Then no step costs
//                       less than one such message, and select() passes over a candidate
//                       of many steps (a ring pipeline) without visiting any.
//   s.first_message_step()  with blocks_every_step(): the promise holds from this step on
//                       (a reduction's first step, which loads the contributions, sends
//                       nothing); 0 when absent.
//   s.steps_alike_from()  k0 when every step from k0 on has step k0's messages (peers and
//                       blocks) and local work, only from and to other places: each costs
//                       what step k0 does under any model without t_fresh (which prices
//                       where a message is read from), and select() passes over a
//                       candidate once the steps left, each that dear, cannot win.
//
// The executor, the verifier, the cost estimate and the recording tests all read this.

#include <collectives/detail/bits.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/rings.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace collectives {

/// Blocks `blocks` of this rank go to rank `peer`.
struct SendOp {
  std::size_t peer = 0;
  Pattern blocks{};
};

/// Blocks from rank `peer` land in `blocks` of this rank, copied or combined.
struct RecvOp {
  std::size_t peer = 0;
  Pattern blocks{};
  Combine combine = Combine::copy;
};

/// After the step's exchanges: blocks `from` are copied or combined into `to`.
struct LocalOp {
  Pattern from{};
  Pattern to{};
  Combine combine = Combine::copy;
};

namespace detail {
/// A visitor that only counts; used to state the schedule concept.
struct NullVisitor {
  constexpr void send(const SendOp&) {}
  constexpr void recv(const RecvOp&) {}
  constexpr void local(const LocalOp&) {}
};
} // namespace detail

/// See the top of this header.
template <class S>
concept schedule = std::copyable<S> && requires(const S& s, std::size_t r, detail::NullVisitor& v) {
  { s.size() } -> std::convertible_to<std::size_t>;
  { s.num_steps() } -> std::convertible_to<std::size_t>;
  { s.scratch_blocks() } -> std::convertible_to<std::size_t>;
  s.operation();
  s.visit(r, r, v);
};

// ---------------------------------------------------------------------------------------
// Symmetry: what a schedule may say about a step so that the cost estimate need not visit
// every rank (cost/schedule_cost.hpp). On a topology whose routes the same translations
// preserve (a ring for cyclic, a hypercube for bits, the mesh for its rings) every rank of
// a class then sees the same routes and the same link loads, so one visit per class gives
// the step's cost exactly; elsewhere the estimate still saves the visits.
// ---------------------------------------------------------------------------------------

/// The translations of the ranks a Symmetry is stated in. A rank is read as the digits of a
/// mixed radix (digit i has extent z_i and weight w_i, rank = sum of d_i w_i), and
/// translating rank r by g adds the digits of g to those of r, each mod its extent:
///  - cyclic(p): one digit of extent p: r + g mod p (rank order round a ring);
///  - bits(p), p = 2^n: n digits of extent 2: r XOR g (the dimensions of a hypercube);
///  - of(rings): one digit per ring of a mesh or torus (Rings, schedule/rings.hpp), for at
///    most max_digits rings of extent above 1 (more: valid() is false). Rings of two whose
///    weights are 1, 2, 4, ... are bits, and one ring of weight 1 is cyclic.
/// Translation by g, as a rank, is the rank that rank 0 moves to.
// (Plain arrays here and in RankClass and Symmetry: the estimate reads them in its
// innermost loop, and in constant evaluation std::array's operator[] is a call, which
// counts against the compilers' step limits.)
struct RankGroup {
  enum class Kind : std::uint8_t { cyclic, bits, rings };
  static constexpr std::size_t max_digits = 4;

  Kind kind = Kind::cyclic;
  std::size_t p = 1;
  std::size_t digits = 1; ///< rings: digits in use; cyclic: 1; bits: log2 p
  std::size_t extent[max_digits]{1, 1, 1, 1};
  std::size_t weight[max_digits]{1, 1, 1, 1};
  bool ok = true;

  // (Built in one expression each: the estimate calls them once per step, and constant
  // evaluation counts statements.)
  static constexpr RankGroup cyclic(std::size_t p) { return {Kind::cyclic, p, 1, {p, 1, 1, 1}, {1, 1, 1, 1}, true}; }
  /// p must be a power of two (valid() is false otherwise).
  static constexpr RankGroup bits(std::size_t p)
  {
    return {Kind::bits,        p, detail::is_power_of_two(p) ? detail::log2_exact(p) : 0, {1, 1, 1, 1}, {1, 1, 1, 1},
            detail::is_power_of_two(p)};
  }
  static constexpr RankGroup of(const Rings& rings)
  {
    RankGroup g;
    g.kind = Kind::rings;
    g.p = rings.size();
    g.digits = 0;
    bool all_two = true;
    std::size_t next_weight = 1; // bits: weights 1, 2, 4, ... in order
    for (std::size_t i = 0; i < rings.ndims(); ++i) {
      if (rings.extent(i) == 1) continue;
      all_two = all_two && rings.extent(i) == 2 && rings.stride(i) == next_weight;
      next_weight *= 2;
      if (g.digits < max_digits) {
        g.extent[g.digits] = rings.extent(i);
        g.weight[g.digits] = rings.stride(i);
      }
      ++g.digits;
    }
    if (g.digits >= 2 && all_two) return bits(g.p);
    if (g.digits == 1 && g.weight[0] == 1) return cyclic(g.p);
    if (g.digits == 0) return cyclic(g.p);
    g.ok = g.digits <= max_digits;
    return g;
  }

  constexpr bool valid() const { return ok; }
  /// Rank r translated by g.
  constexpr std::size_t plus(std::size_t r, std::size_t g) const
  {
    if (kind == Kind::bits) return r ^ g;
    if (kind == Kind::cyclic) return g < p - r ? r + g : r - (p - g);
    std::size_t out = r;
    for (std::size_t i = 0; i < digits; ++i) {
      const std::size_t z = extent[i], w = weight[i];
      const std::size_t d = (r / w) % z, e = (g / w) % z;
      out = out - d * w + (e < z - d ? d + e : d + e - z) * w;
    }
    return out;
  }
  /// The translation that takes rank b to rank a.
  constexpr std::size_t minus(std::size_t a, std::size_t b) const
  {
    if (kind == Kind::bits) return a ^ b;
    if (kind == Kind::cyclic) return a >= b ? a - b : a + (p - b);
    std::size_t out = 0;
    for (std::size_t i = 0; i < digits; ++i) {
      const std::size_t z = extent[i], w = weight[i];
      const std::size_t d = (a / w) % z, e = (b / w) % z;
      out += (d >= e ? d - e : d + z - e) * w;
    }
    return out;
  }
  friend constexpr bool operator==(const RankGroup&, const RankGroup&) = default;
};

/// One class of a Symmetry: rank `rep` and the translations g that take it to the other
/// members, rep translated by g. Cyclic and rings: digit i of g runs over 0, step[i],
/// 2 step[i], ... (count[i] values, mod the digit's extent); bits: g runs over every subset
/// of the bits `free`. A class of one rank is only(r).
struct RankClass {
  std::size_t rep = 0;
  std::size_t step[RankGroup::max_digits]{1, 1, 1, 1};
  std::size_t count[RankGroup::max_digits]{1, 1, 1, 1};
  std::size_t free = 0;

  /// Rank r alone.
  static constexpr RankClass only(std::size_t r)
  {
    RankClass c;
    c.rep = r;
    return c;
  }
  /// Every rank, the same as `rep` translated.
  static constexpr RankClass everyone(const RankGroup& g, std::size_t rep = 0)
  {
    if (g.kind == RankGroup::Kind::bits) return {rep, {1, 1, 1, 1}, {1, 1, 1, 1}, g.p - 1};
    // Unused digits have extent 1.
    return {rep, {1, 1, 1, 1}, {g.extent[0], g.extent[1], g.extent[2], g.extent[3]}, 0};
  }
  /// Cyclic: ranks first, first + step, ..., `count` of them (mod p).
  static constexpr RankClass progression(std::size_t first, std::size_t step, std::size_t count)
  {
    RankClass c;
    c.rep = first;
    c.step[0] = step;
    c.count[0] = count;
    return c;
  }
  /// Cyclic: ranks first, first + 1, ..., `count` of them (mod p).
  static constexpr RankClass run(std::size_t first, std::size_t count) { return progression(first, 1, count); }

  /// Number of members (rep included).
  constexpr std::size_t size(const RankGroup& g) const
  {
    // Unused digits count 1.
    return g.kind == RankGroup::Kind::bits ? std::size_t{1} << detail::popcount(free)
                                           : count[0] * count[1] * count[2] * count[3];
  }
  /// Translation number `j` of the class (0 <= j < size(g); 0 is rep itself).
  constexpr std::size_t translation(const RankGroup& g, std::size_t j) const
  {
    if (g.kind == RankGroup::Kind::bits) {
      // Deposit the bits of j into the free positions.
      std::size_t out = 0;
      for (std::size_t m = free; m != 0 && j != 0; m &= m - 1, j >>= 1)
        if ((j & 1u) != 0) out |= m & (~m + 1);
      return out;
    }
    std::size_t out = 0;
    for (std::size_t i = 0; i < g.digits && i < RankGroup::max_digits; ++i) {
      const std::size_t l = j % count[i];
      j /= count[i];
      out += ((l * step[i]) % g.extent[i]) * g.weight[i];
    }
    return out;
  }
  friend constexpr bool operator==(const RankClass&, const RankClass&) = default;
};

/// What step k of a schedule says about its ranks (s.symmetry(k)): up to max_classes
/// classes, each a representative rank and the translations of it that are the class's
/// other members (RankClass). Every member rep + g (translated in `group`) does in step k
/// exactly what rep does with every peer q replaced by q + g: the same sends and receives,
/// in the same order, with the same block counts, and local work of the same size (local
/// blocks, and receives that combine). Classes do not overlap, a class lists no rank twice,
/// and ranks in no class do nothing in step k; a class of no member (a count of 0) is
/// ignored. A default Symmetry (stated() false) says nothing: the estimate visits every
/// rank of that step. The estimate trusts what is stated, in constant evaluation and at
/// run time (estimate()); estimate_every_rank() visits every rank whatever the schedule
/// states: compare the two to check a schedule's symmetry (tests/unit/cost_symmetry.cpp
/// does, for the library's schedules).
/// A step may instead be stated whole as a star (fan_out, fan_in: a linear algorithm's one
/// step, whose root's p - 1 messages no class could hold, and whose other ranks all talk to
/// the same rank, which no translation keeps).
struct Symmetry {
  static constexpr std::size_t max_classes = 4;

  /// Rank `root` sends one message of `blocks` blocks to every other rank (or, fan_in,
  /// receives one from each), copying, and has `root_local` blocks of local work; every
  /// other rank has that one message and nothing else.
  struct Star {
    bool on = false;
    bool fan_in = false;
    std::size_t root = 0, blocks = 0, root_local = 0;
    friend constexpr bool operator==(const Star&, const Star&) = default;
  };

  RankGroup group{};
  bool said = false;
  std::size_t classes = 0;
  RankClass cls[max_classes]{};
  Star star{};

  /// Nothing is said about the step.
  static constexpr Symmetry none() { return {}; }
  /// Stated in `g`, with no class yet (no rank does anything until classes are added).
  static constexpr Symmetry in(const RankGroup& g)
  {
    Symmetry s;
    s.group = g;
    s.said = g.valid();
    return s;
  }
  /// Every rank does what rank 0 does, translated.
  static constexpr Symmetry uniform(const RankGroup& g) { return {g, g.valid(), 1, {RankClass::everyone(g)}}; }
  /// The given classes (distinct and not overlapping; one of no member is ignored): built
  /// in one expression, for schedules that state a symmetry at every step of many.
  template <class... C>
    requires(sizeof...(C) <= max_classes && (std::same_as<C, RankClass> && ...))
  static constexpr Symmetry of(const RankGroup& g, const C&... c)
  {
    return {g, g.valid(), sizeof...(C), {c...}};
  }

  /// A star of p ranks: `root` sends `blocks` blocks to every other rank, and has
  /// `root_local` blocks of local work (Star).
  static constexpr Symmetry fan_out(std::size_t p, std::size_t root, std::size_t blocks, std::size_t root_local)
  {
    Symmetry s = in(RankGroup::cyclic(p));
    s.star = {true, false, root, blocks, root_local};
    return s;
  }
  /// A star of p ranks: every other rank sends `blocks` blocks to `root`, which copies them
  /// and has `root_local` blocks of local work (Star).
  static constexpr Symmetry fan_in(std::size_t p, std::size_t root, std::size_t blocks, std::size_t root_local)
  {
    Symmetry s = in(RankGroup::cyclic(p));
    s.star = {true, true, root, blocks, root_local};
    return s;
  }

  /// Adds class c (at most max_classes; more makes the statement none()); a class of no
  /// member (a count of 0) adds nothing.
  constexpr Symmetry with(const RankClass& c) const
  {
    if (c.size(group) == 0) return *this;
    if (classes == max_classes) return none();
    Symmetry s = *this;
    s.cls[s.classes++] = c;
    return s;
  }
  /// Adds rank r alone, unless it is a class of one already.
  constexpr Symmetry with_rank(std::size_t r) const
  {
    for (std::size_t c = 0; c < classes; ++c)
      if (cls[c].rep == r && cls[c].size(group) == 1) return *this;
    return with(RankClass::only(r));
  }
  constexpr bool stated() const { return said; }
  friend constexpr bool operator==(const Symmetry&, const Symmetry&) = default;
};

/// A schedule that states the symmetry of its steps.
template <class S>
concept symmetric_schedule = schedule<S> && requires(const S& s, std::size_t k) {
  { s.symmetry(k) } -> std::convertible_to<Symmetry>;
};

namespace detail {
/// to = from, field by field. The schedules build their ops in the visit's frame with
/// 8-byte stores; both compilers copy a whole struct with 16-byte loads, which cannot be
/// forwarded from those stores and stall (measured at -O2: a visit into StepOps takes
/// 30 % less time with this copy under g++, up to 60 % less under clang++).
constexpr void copy_fields(Pattern& to, const Pattern& from)
{
  static_assert(sizeof(Pattern) == 9 * sizeof(std::size_t), "copy_fields must copy every field of Pattern");
  to.buffer = from.buffer;
  to.count = from.count;
  to.first = from.first;
  to.run = from.run;
  to.stride = from.stride;
  to.modulus = from.modulus;
  to.mask = from.mask;
  to.descending = from.descending;
  to.base = from.base;
}
} // namespace detail

/// Everything one rank does in one step, collected (for tests, static_asserts and tools).
struct StepOps {
  std::vector<SendOp> sends;
  std::vector<RecvOp> recvs;
  std::vector<LocalOp> locals;

  constexpr void send(const SendOp& op)
  {
    SendOp& to = sends.emplace_back();
    to.peer = op.peer;
    detail::copy_fields(to.blocks, op.blocks);
  }
  constexpr void recv(const RecvOp& op)
  {
    RecvOp& to = recvs.emplace_back();
    to.peer = op.peer;
    detail::copy_fields(to.blocks, op.blocks);
    to.combine = op.combine;
  }
  constexpr void local(const LocalOp& op)
  {
    LocalOp& to = locals.emplace_back();
    detail::copy_fields(to.from, op.from);
    detail::copy_fields(to.to, op.to);
    to.combine = op.combine;
  }
};

namespace detail {

/// s->visit(rank, step, ops) for the schedule type S behind `s`: the one instantiation of
/// S's visit that both the executor (ScheduleRef) and the run-time estimate
/// (WalkScheduleRef) call, so a translation unit that can run and price a schedule
/// compiles its visit once. (Unconstrained: its callers check `schedule`, and the compiled
/// mode's declarations of it for every library schedule would each check it again.)
template <class S>
void visit_thunk(const void* s, std::size_t rank, std::size_t step, StepOps& ops)
{
  static_cast<const S*>(s)->visit(rank, step, ops);
}

} // namespace detail

/// What rank `rank` does in step `step` of schedule s.
template <schedule S>
constexpr StepOps step_ops(const S& s, std::size_t rank, std::size_t step)
{
  StepOps ops;
  s.visit(rank, step, ops);
  return ops;
}

/// The partner rank `rank` sends to first in `step`, or the rank itself when it sends nothing.
template <schedule S>
constexpr std::size_t send_partner(const S& s, std::size_t rank, std::size_t step)
{
  const auto ops = step_ops(s, rank, step);
  return ops.sends.empty() ? rank : ops.sends.front().peer;
}

/// Blocks rank `rank` sends in `step`, over all its partners.
template <schedule S>
constexpr std::size_t blocks_sent(const S& s, std::size_t rank, std::size_t step)
{
  std::size_t n = 0;
  for (const auto& op : step_ops(s, rank, step).sends) n += op.blocks.count;
  return n;
}

} // namespace collectives
