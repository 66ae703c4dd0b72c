#pragma once
// The verifier: runs a schedule symbolically on every rank at once, each block tagged with
// its origin, and proves
//   - both ends of every transfer agree: a receive from q in step k meets a send from q to
//     this rank in step k (matched in order), of the same number of blocks;
//   - every block index is inside its buffer, no rank sends to itself, the input buffer
//     is never written, a step never writes a block the same rank sends in that step (the
//     transports read the sender's memory while the step runs), and no block is written
//     twice in one step;
//   - no block is sent before it holds data;
//   - combining keeps rank order: a∘b only when a's ranks end where b's begin (for an
//     operator declared commutative: each contribution is combined exactly once);
//   - at the end every output block holds what the operation's postcondition says.
// constexpr: static_assert(verify(schedule).ok) on small static topologies; the same code
// runs at run time for large p.

#include <collectives/schedule/operation.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>

#include <cstddef>
#include <vector>

namespace collectives {

/// The verifier's verdict; `what` says which law failed, at which rank and step.
struct VerifyResult {
  bool ok = true;
  const char* what = "ok";
  std::size_t rank = 0;
  std::size_t step = 0;
  constexpr explicit operator bool() const { return ok; }
};

namespace detail {

struct SymbolicRank {
  std::vector<Symbol> input, output, scratch;
  std::vector<std::size_t> sent_in, sent_out, sent_scr;       // step+1 when sent in that step
  std::vector<std::size_t> wrote_in, wrote_out, wrote_scr;    // step+1 when written in that step

  constexpr std::vector<Symbol>& buf(Buffer b)
  {
    return b == Buffer::input ? input : b == Buffer::output ? output : scratch;
  }
  constexpr std::vector<std::size_t>& sent(Buffer b)
  {
    return b == Buffer::input ? sent_in : b == Buffer::output ? sent_out : sent_scr;
  }
  constexpr std::vector<std::size_t>& wrote(Buffer b)
  {
    return b == Buffer::input ? wrote_in : b == Buffer::output ? wrote_out : wrote_scr;
  }
};

constexpr bool in_range(SymbolicRank& st, const Pattern& pat)
{
  const auto n = st.buf(pat.buffer).size();
  for (std::size_t i = 0; i < pat.count; ++i)
    if (pat[i] >= n) return false;
  return true;
}

/// A rank's fingerprint: sums of fingerprints identify which ranks a commutative
/// reduction combined (a wrong multiset matching by chance is astronomically unlikely).
constexpr std::uint64_t fingerprint(std::uint64_t r)
{
  std::uint64_t z = r + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Applies `in` to `dst` by `how`; false when the combination breaks the rules.
/// Not commutative: a op b needs a's ranks to end right where b's begin.
/// Commutative: any two disjoint sets may be combined; the symbol then counts ranks in
/// [lo, hi] (lo = 0) and sums their fingerprints in `mix`.
constexpr bool apply(Symbol& dst, const Symbol& in, Combine how, bool commutative = false)
{
  if (in.empty()) return false;
  if (how == Combine::copy) {
    dst = in;
    return true;
  }
  if (dst.empty() || dst.id != in.id) return false;
  if (!commutative) {
    const Symbol& a = how == Combine::left ? in : dst; // a op b
    const Symbol& b = how == Combine::left ? dst : in;
    if (a.hi + 1 != b.lo) return false;
    dst = Symbol{in.id, a.lo, b.hi};
    return true;
  }
  const std::uint32_t count = (dst.hi - dst.lo + 1) + (in.hi - in.lo + 1);
  dst = Symbol{in.id, 0, count - 1, dst.mix + in.mix};
  return true;
}

/// The spec's commutative flag, false when it has none.
template <class Op>
constexpr bool spec_commutative(const Op& op)
{
  if constexpr (requires { op.commutative; }) return op.commutative;
  else return false;
}

/// For commutative reductions a fresh contribution carries its rank's fingerprint.
constexpr Symbol with_fingerprint(Symbol s, bool commutative)
{
  if (commutative && !s.empty() && s.lo == s.hi) s.mix = fingerprint(s.lo);
  return s;
}

/// Final comparison: exact, or for commutative reductions the same block combining
/// exactly the ranks [want.lo, want.hi] (by count and fingerprint sum).
constexpr bool matches(const Symbol& got, const Symbol& want, bool commutative)
{
  if (!commutative) return got == want;
  if (got.empty() || got.id != want.id || got.hi - got.lo != want.hi - want.lo) return false;
  std::uint64_t mix = 0;
  for (std::uint64_t r = want.lo; r <= want.hi; ++r) mix += fingerprint(r);
  return got.mix == mix;
}

} // namespace detail

/// Proves schedule s correct for its operation (see the top of this header).
template <schedule S>
constexpr VerifyResult verify(const S& s)
{
  using detail::SymbolicRank;
  const std::size_t p = s.size();
  const auto op = s.operation();
  const bool commutative = detail::spec_commutative(op);
  std::vector<SymbolicRank> st(p);
  for (std::size_t r = 0; r < p; ++r) {
    auto& x = st[r];
    x.input.resize(op.input_blocks(r));
    x.output.resize(op.output_blocks(r));
    x.scratch.resize(s.scratch_blocks());
    for (std::size_t j = 0; j < x.input.size(); ++j) x.input[j] = detail::with_fingerprint(op.input(r, j), commutative);
    if constexpr (requires { op.initial_output(r, r); })
      for (std::size_t j = 0; j < x.output.size(); ++j)
        x.output[j] = detail::with_fingerprint(op.initial_output(r, j), commutative);
    x.sent_in.assign(x.input.size(), 0);
    x.sent_out.assign(x.output.size(), 0);
    x.sent_scr.assign(x.scratch.size(), 0);
    x.wrote_in = x.sent_in;
    x.wrote_out = x.sent_out;
    x.wrote_scr = x.sent_scr;
  }
  auto fail = [](const char* what, std::size_t r, std::size_t k) { return VerifyResult{false, what, r, k}; };

  // Buffers reused from step to step, so a run allocates O(p) times rather than O(p) per
  // step (half the run time at p = 512, more under sanitizers).
  std::vector<StepOps> ops(p);
  std::vector<Symbol> messages;        // the step's received messages, back to back
  std::vector<std::size_t> message_at; // where each one starts in `messages`
  std::vector<Symbol> tmp;             // a local op's source blocks
  for (std::size_t k = 0; k < s.num_steps(); ++k) {
    const std::size_t stamp = k + 1;
    for (std::size_t r = 0; r < p; ++r) {
      ops[r].sends.clear();
      ops[r].recvs.clear();
      ops[r].locals.clear();
      s.visit(r, k, ops[r]);
    }
    // Sends: partners valid, blocks in range and holding data; mark them.
    for (std::size_t r = 0; r < p; ++r) {
      for (const auto& snd : ops[r].sends) {
        if (snd.peer >= p) return fail("a send names a partner outside 0..p-1", r, k);
        if (snd.peer == r) return fail("a rank sends to itself (use a local op)", r, k);
        if (!detail::in_range(st[r], snd.blocks)) return fail("a send names a block outside its buffer", r, k);
        for (std::size_t i = 0; i < snd.blocks.count; ++i) {
          const auto b = snd.blocks[i];
          if (st[r].buf(snd.blocks.buffer)[b].empty()) return fail("a rank sends a block before it holds data", r, k);
          st[r].sent(snd.blocks.buffer)[b] = stamp;
        }
      }
    }
    // Receives: match the n-th receive from q with the n-th send from q to r; snapshot.
    messages.clear();
    message_at.clear();
    for (std::size_t r = 0; r < p; ++r) {
      for (std::size_t n = 0; n < ops[r].recvs.size(); ++n) {
        const auto& rcv = ops[r].recvs[n];
        const std::size_t q = rcv.peer;
        if (q >= p) return fail("a receive names a partner outside 0..p-1", r, k);
        if (q == r) return fail("a rank receives from itself (use a local op)", r, k);
        std::size_t ordinal = 0;
        for (std::size_t m = 0; m < n; ++m) ordinal += ops[r].recvs[m].peer == q ? 1u : 0u;
        const SendOp* match = nullptr;
        std::size_t seen = 0;
        for (const auto& snd : ops[q].sends)
          if (snd.peer == r && seen++ == ordinal) {
            match = &snd;
            break;
          }
        if (match == nullptr) return fail("a receive has no matching send in the same step", r, k);
        if (match->blocks.count != rcv.blocks.count)
          return fail("sender and receiver disagree on the number of blocks", r, k);
        if (!detail::in_range(st[r], rcv.blocks)) return fail("a receive names a block outside its buffer", r, k);
        message_at.push_back(messages.size());
        const auto& from = st[q].buf(match->blocks.buffer);
        for (std::size_t i = 0; i < rcv.blocks.count; ++i) messages.push_back(from[match->blocks[i]]);
      }
    }
    // Every send is received.
    for (std::size_t r = 0; r < p; ++r)
      for (const auto& snd : ops[r].sends) {
        std::size_t sends_to = 0, recvs_from = 0;
        for (const auto& o : ops[r].sends) sends_to += o.peer == snd.peer ? 1u : 0u;
        for (const auto& o : ops[snd.peer].recvs) recvs_from += o.peer == r ? 1u : 0u;
        if (sends_to != recvs_from) return fail("a send has no matching receive in the same step", r, k);
      }
    // Apply the receives.
    std::size_t msg_index = 0;
    for (std::size_t r = 0; r < p; ++r) {
      for (const auto& rcv : ops[r].recvs) {
        const Symbol* msg = messages.data() + message_at[msg_index++];
        if (rcv.blocks.buffer == Buffer::input) return fail("a receive writes the input buffer", r, k);
        auto& dst = st[r].buf(rcv.blocks.buffer);
        auto& sent = st[r].sent(rcv.blocks.buffer);
        auto& wrote = st[r].wrote(rcv.blocks.buffer);
        for (std::size_t i = 0; i < rcv.blocks.count; ++i) {
          const auto b = rcv.blocks[i];
          // A combining receive lands in a temporary and is applied after the exchange,
          // so only copies may not target blocks being sent.
          if (rcv.combine == Combine::copy && sent[b] == stamp)
            return fail("a rank receives into a block it sends in the same step", r, k);
          if (wrote[b] == stamp) return fail("two receives write the same block in one step", r, k);
          wrote[b] = stamp;
          if (!detail::apply(dst[b], msg[i], rcv.combine, commutative))
            return fail(msg[i].empty() ? "a received block is empty" : "a combination breaks rank order", r, k);
        }
      }
    }
    // Locals, in order.
    for (std::size_t r = 0; r < p; ++r) {
      for (const auto& loc : ops[r].locals) {
        if (loc.from.count != loc.to.count) return fail("a local op's two sides differ in size", r, k);
        if (!detail::in_range(st[r], loc.from) || !detail::in_range(st[r], loc.to))
          return fail("a local op names a block outside its buffer", r, k);
        if (loc.to.buffer == Buffer::input) return fail("a local op writes the input buffer", r, k);
        tmp.clear();
        for (std::size_t i = 0; i < loc.from.count; ++i) tmp.push_back(st[r].buf(loc.from.buffer)[loc.from[i]]);
        for (std::size_t i = 0; i < tmp.size(); ++i)
          if (!detail::apply(st[r].buf(loc.to.buffer)[loc.to[i]], tmp[i], loc.combine, commutative))
            return fail(tmp[i].empty() ? "a local op reads an empty block" : "a local combination breaks rank order",
                        r, k);
      }
    }
  }
  for (std::size_t r = 0; r < p; ++r)
    for (std::size_t i = 0; i < st[r].output.size(); ++i) {
      const Symbol want = op.expected(r, i);
      if (want == dont_care) continue;
      if (!detail::matches(st[r].output[i], want, commutative)) return fail("an output block does not hold what the operation promises", r, s.num_steps());
    }
  return {};
}

} // namespace collectives
