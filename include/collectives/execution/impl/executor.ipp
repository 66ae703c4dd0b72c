#pragma once
// The executor core's definition (execution/executor.hpp declares run_steps) and
// the helpers only it uses: included by that header, or compiled once with
// COLLECTIVES_SEPARATE_COMPILATION (collectives/separate_compilation.hpp).

#include <collectives/detail/require.hpp>
#include <collectives/execution/executor.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace collectives {

namespace detail {

/// Appends the byte pieces of `pat` in `buf` to `out`, merging blocks adjacent in memory.
template <class Piece>
void append_pieces(const ByteBuffer& buf, std::size_t elem, const Pattern& pat, std::vector<Piece>& out)
{
  std::byte* pending = nullptr;
  std::size_t pending_size = 0;
  for (std::size_t i = 0; i < pat.count; ++i) {
    const std::size_t b = pat[i];
    const std::size_t n = buf.layout.length(b) * elem;
    if (n == 0) continue;
    std::byte* at = buf.data + buf.layout.offset(b) * elem;
    if (pending != nullptr && pending + pending_size == at) {
      pending_size += n;
    } else {
      if (pending != nullptr) out.push_back(Piece{pending, pending_size});
      pending = at;
      pending_size = n;
    }
  }
  if (pending != nullptr) out.push_back(Piece{pending, pending_size});
}

/// Elements in the blocks of `pat`.
inline std::size_t pattern_elements(const ByteBuffer& buf, const Pattern& pat)
{
  if (buf.layout.counts == nullptr && buf.layout.k == 1) return pat.count * buf.layout.n;
  std::size_t n = 0;
  for (std::size_t i = 0; i < pat.count; ++i) n += buf.layout.length(pat[i]);
  return n;
}

/// Combines (or copies) contiguous `from` into the blocks of `pat` in order.
inline void scatter_into(const ByteBuffer& buf, const Pattern& pat, const std::byte* from, Combine how,
                         const Reducer* red, std::size_t elem)
{
  for (std::size_t i = 0; i < pat.count; ++i) {
    const std::size_t b = pat[i];
    const std::size_t n = buf.layout.length(b);
    std::byte* dst = buf.data + buf.layout.offset(b) * elem;
    if (how == Combine::copy || red == nullptr) {
      if (n != 0) std::memcpy(dst, from, n * elem);
    } else {
      red->fn(red->op, dst, from, n, how);
    }
    from += n * elem;
  }
}

/// Gathers the blocks of `pat` into contiguous `out`.
inline void gather_from(const ByteBuffer& buf, const Pattern& pat, std::byte* out, std::size_t elem)
{
  for (std::size_t i = 0; i < pat.count; ++i) {
    const std::size_t b = pat[i];
    const std::size_t n = buf.layout.length(b) * elem;
    if (n != 0) std::memcpy(out, buf.data + buf.layout.offset(b) * elem, n);
    out += n;
  }
}

inline void combine_on_receive(const void* ctx, std::byte* dst, const std::byte* src, std::size_t bytes)
{
  const auto& c = *static_cast<const CombineContext*>(ctx);
  const Reducer& red = **c.red;
  red.fn(red.op, dst, src, bytes / red.elem, c.how);
}

/// ReceiveCombine::fn of a FusedCombine: dst's old bytes are not read.
inline void fused_on_receive(const void* ctx, std::byte* dst, const std::byte* src, std::size_t bytes)
{
  const auto& f = *static_cast<const FusedCombine*>(ctx);
  const std::byte* other = f.other_base + (dst - f.dst_base);
  const Reducer& red = **f.red;
  if (f.how == Combine::left) red.fn3(red.op, dst, other, src, bytes / red.elem);
  else red.fn3(red.op, dst, src, other, bytes / red.elem);
}

/// Whether blocks of `a` and of `b` share memory (buffers are the same memory or apart).
/// Patterns of many blocks each answer yes unchecked: a step that large runs its local ops
/// after its messages, as it always may.
inline bool overlaps(const ByteBuffer& a, const Pattern& pa, const ByteBuffer& b, const Pattern& pb, std::size_t elem)
{
  if (a.data != b.data || a.data == nullptr) return false;
  if (pa.count * pb.count > 4096) return true;
  for (std::size_t i = 0; i < pa.count; ++i) {
    const std::size_t alo = a.layout.offset(pa[i]) * elem, ahi = alo + a.layout.length(pa[i]) * elem;
    if (alo == ahi) continue;
    for (std::size_t j = 0; j < pb.count; ++j) {
      const std::size_t blo = b.layout.offset(pb[j]) * elem, bhi = blo + b.layout.length(pb[j]) * elem;
      if (blo != bhi && alo < bhi && blo < ahi) return true;
    }
  }
  return false;
}

/// Whether local op `loc` of a step can run on receipt of copying receive `rcv`: it
/// combines, into exactly the received blocks, blocks that share no memory with them (of
/// another buffer, or elsewhere in the same one: a dimensional reduce-scatter's partials
/// of the last phase into this phase's) and that no receive of the step writes, and no
/// earlier local op of the step touches either buffer; both sides laid out alike
/// (alike_starts, checked by the caller).
/// (Buffers are the same memory or apart: an in-place call's input is its output.)
inline bool fusable(const StepOps& ops, std::size_t li, const RecvOp& rcv, const std::array<ByteBuffer, 3>& bufs,
                    std::size_t elem)
{
  auto at = [&](Buffer b) { return bufs[static_cast<std::size_t>(b)].data; };
  auto view = [&](Buffer b) -> const ByteBuffer& { return bufs[static_cast<std::size_t>(b)]; };
  const LocalOp& loc = ops.locals[li];
  if (loc.combine == Combine::copy || rcv.combine != Combine::copy) return false;
  if (loc.to.buffer != rcv.blocks.buffer || loc.to.count != rcv.blocks.count || loc.from.count != loc.to.count)
    return false;
  for (std::size_t i = 0; i < loc.to.count; ++i)
    if (loc.to[i] != rcv.blocks[i]) return false;
  if (overlaps(view(loc.from.buffer), loc.from, view(loc.to.buffer), loc.to, elem)) return false;
  for (const auto& r : ops.recvs)
    if (overlaps(view(r.blocks.buffer), r.blocks, view(loc.from.buffer), loc.from, elem)) return false;
  for (std::size_t j = 0; j < li; ++j) {
    const LocalOp& e = ops.locals[j];
    for (Buffer b : {e.from.buffer, e.to.buffer})
      if (at(b) == at(loc.from.buffer) || at(b) == at(loc.to.buffer)) return false;
  }
  return true;
}

/// How many of the step's first local ops may run while its messages move (StepWork):
/// copies between buffers, pairing block i with block i as copy_local does, that write no
/// memory a send reads or a receive writes and read no memory a receive writes. Only a
/// prefix, so the local ops keep their order. (A prefix of copies precedes every fused
/// op, which is a combine, and fusable() keeps a fused op's buffers apart from every
/// earlier op's: the fused ops need no check here.)
inline std::size_t early_locals(const StepOps& ops, const std::array<ByteBuffer, 3>& bufs, std::size_t elem)
{
  auto view = [&](Buffer b) -> const ByteBuffer& { return bufs[static_cast<std::size_t>(b)]; };
  if (ops.locals.empty() || (ops.sends.empty() && ops.recvs.empty())) return 0;
  std::size_t n = 0;
  for (; n < ops.locals.size(); ++n) {
    const LocalOp& loc = ops.locals[n];
    if (loc.combine != Combine::copy || loc.from.buffer == loc.to.buffer || loc.from.count != loc.to.count) break;
    const ByteBuffer& from = view(loc.from.buffer);
    const ByteBuffer& to = view(loc.to.buffer);
    bool clash = false;
    for (const SendOp& snd : ops.sends)
      clash = clash || overlaps(to, loc.to, view(snd.blocks.buffer), snd.blocks, elem);
    for (const RecvOp& rcv : ops.recvs) {
      const ByteBuffer& into = view(rcv.blocks.buffer);
      clash = clash || overlaps(to, loc.to, into, rcv.blocks, elem) || overlaps(from, loc.from, into, rcv.blocks, elem);
    }
    if (clash) break;
  }
  return n;
}

/// Whether local op `loc` may run block by block with no temporary: block i of `from`
/// goes to block i of `to`, the pairs have the same length, and no block it reads is one it
/// writes (a local op is a parallel assignment). Copies between two buffers always may
/// (memmove: in place, input and output are the same memory).
inline bool direct_local(const LocalOp& loc, const std::array<ByteBuffer, 3>& bufs, std::size_t elem)
{
  const ByteBuffer& from = bufs[static_cast<std::size_t>(loc.from.buffer)];
  const ByteBuffer& to = bufs[static_cast<std::size_t>(loc.to.buffer)];
  if (loc.from.count != loc.to.count) return false;
  if (loc.combine == Combine::copy && loc.from.buffer != loc.to.buffer) return true;
  for (std::size_t i = 0; i < loc.from.count; ++i)
    if (from.layout.length(loc.from[i]) != to.layout.length(loc.to[i])) return false;
  return !overlaps(from, loc.from, to, loc.to, elem);
}

/// Copies local op `loc`'s blocks between two buffers (memmove: in place, input and output
/// are the same memory).
inline void copy_local(const LocalOp& loc, const ByteBuffer& from, const ByteBuffer& to, std::size_t elem)
{
  for (std::size_t i = 0; i < loc.from.count; ++i) {
    const std::size_t n = from.layout.length(loc.from[i]) * elem;
    std::byte* dst = to.data + to.layout.offset(loc.to[i]) * elem;
    const std::byte* src = from.data + from.layout.offset(loc.from[i]) * elem;
    if (n != 0 && dst != src) std::memmove(dst, src, n); // in place: the copy of a block onto itself is none
  }
}

/// A step's early local ops (PlanStep::early), as the StepWork its exchange runs.
struct EarlyLocals {
  const LocalOp* ops;
  std::size_t count;
  const std::array<ByteBuffer, 3>* bufs;
  std::size_t elem;
  const EndpointRef* ep;
  const StepInfo* info;
  static void run(void* ctx)
  {
    const auto& e = *static_cast<const EarlyLocals*>(ctx);
    e.ep->mark(Phase::copy, true, *e.info);
    for (std::size_t i = 0; i < e.count; ++i) {
      const LocalOp& loc = e.ops[i];
      copy_local(loc, (*e.bufs)[static_cast<std::size_t>(loc.from.buffer)],
                 (*e.bufs)[static_cast<std::size_t>(loc.to.buffer)], e.elem);
    }
    e.ep->mark(Phase::copy, false, *e.info);
  }
};

/// Where blocks `a` of `abuf` and blocks `b` of `bbuf` start, when the two are laid out
/// alike: block i of each as long as the other's and as far from the first nonempty block,
/// so that one offset takes every byte of `a` to its partner in `b` (the pieces of a fused
/// receive: a recursive-halving step's every other block included). Null starts when they
/// are not, or are empty.
inline std::pair<const std::byte*, const std::byte*> alike_starts(const ByteBuffer& abuf, const Pattern& a,
                                                                  const ByteBuffer& bbuf, const Pattern& b,
                                                                  std::size_t elem)
{
  if (a.count != b.count) return {};
  const std::byte* first_a = nullptr;
  const std::byte* first_b = nullptr;
  for (std::size_t i = 0; i < a.count; ++i) {
    const std::size_t n = abuf.layout.length(a[i]);
    if (n != bbuf.layout.length(b[i])) return {};
    if (n == 0) continue;
    const std::byte* at_a = abuf.data + abuf.layout.offset(a[i]) * elem;
    const std::byte* at_b = bbuf.data + bbuf.layout.offset(b[i]) * elem;
    if (first_a == nullptr) {
      first_a = at_a;
      first_b = at_b;
    } else if (at_a - first_a != at_b - first_b) {
      return {};
    }
  }
  return {first_a, first_b};
}

/// The executor tells the input's blocks from the output's by their offsets when the two
/// buffers start at the same address, and takes them for apart otherwise: input and
/// output that share memory from different starts would give wrong results silently.
/// Checked once per plan, before anything moves, over the bytes the plan's steps name
/// (the front ends copy an overlapping input first; this guards execute()).
template <class P>
void require_apart_or_same(const P& plan, const std::array<ByteBuffer, 3>& bufs, std::size_t elem)
{
  const ByteBuffer& in = bufs[static_cast<std::size_t>(Buffer::input)];
  const ByteBuffer& out = bufs[static_cast<std::size_t>(Buffer::output)];
  if (in.data == out.data || in.data == nullptr || out.data == nullptr) return;
  // [lo, hi) of the bytes the plan names in each buffer.
  std::size_t lo[2] = {SIZE_MAX, SIZE_MAX}, hi[2] = {0, 0};
  auto note = [&](const Pattern& pat) {
    if (pat.buffer != Buffer::input && pat.buffer != Buffer::output) return;
    const int i = pat.buffer == Buffer::input ? 0 : 1;
    const ByteBuffer& b = i == 0 ? in : out;
    for (std::size_t j = 0; j < pat.count; ++j) {
      const std::size_t n = b.layout.length(pat[j]) * elem;
      if (n == 0) continue;
      const std::size_t at = b.layout.offset(pat[j]) * elem;
      lo[i] = at < lo[i] ? at : lo[i];
      hi[i] = at + n > hi[i] ? at + n : hi[i];
    }
  };
  for (const SendOp& op : plan.sends) note(op.blocks);
  for (const RecvOp& op : plan.recvs) note(op.blocks);
  for (const LocalOp& op : plan.locals) {
    note(op.from);
    note(op.to);
  }
  if (lo[0] >= hi[0] || lo[1] >= hi[1]) return;
  const auto a = std::bit_cast<std::uintptr_t>(in.data), b = std::bit_cast<std::uintptr_t>(out.data);
  if (a + lo[0] < b + hi[1] && b + lo[1] < a + hi[0])
    throw_invalid_argument("collectives::execute: input and output share memory but start at different "
                           "addresses (pass them apart, or as the same buffer for an in-place call)");
}

/// Whether `plan` was made for this call: the same schedule (by value) on the same rank
/// over the same buffers and layouts, with the same kind of reducer and transport.
/// (The plan's type and the context's are template parameters so that nothing in these
/// bodies is compiled before a call runs: clang instantiates what a template's
/// non-dependent expressions use at its definition.) With ScratchMayMove, the scratch may
/// lie elsewhere: the plan was made for this call over scratch a larger call has moved (a
/// template parameter: the look-up of every call compiles without the test).
template <bool ScratchMayMove = false, class P>
bool plan_fits(const P& plan, const ScheduleRef& s, const EndpointRef& ep, const std::array<ByteBuffer, 3>& bufs,
               const Reducer* red)
{
  if (!plan.valid || plan.schedule.visit != s.visit || plan.schedule.steps != s.steps ||
      plan.schedule.scratch_blocks != s.scratch_blocks || plan.schedule.same != s.same ||
      plan.rank != ep.rank || plan.combines_on_receive != ep.combines_on_receive ||
      plan.combines_into_sends != ep.combines_into_sends || plan.reduces != (red != nullptr))
    return false;
  if (red != nullptr && (plan.kind.fn != red->fn || plan.kind.fn3 != red->fn3 || plan.kind.elem != red->elem ||
                         plan.kind.concurrent != red->concurrent))
    return false;
  for (std::size_t i = 0; i < bufs.size(); ++i) {
    const ByteBuffer& a = plan.bufs[i];
    const ByteBuffer& b = bufs[i];
    if ((a.data != b.data && !(ScratchMayMove && i == 2)) || a.layout.n != b.layout.n || a.layout.k != b.layout.k ||
        (a.layout.counts == nullptr) != (b.layout.counts == nullptr))
      return false;
    if (b.layout.counts != nullptr)
      for (std::size_t j = 0; j < plan.counts[i].size(); ++j)
        if (plan.counts[i][j] != b.layout.counts[j] || plan.displs[i][j] != b.layout.displs[j]) return false;
  }
  return s.same(plan.value.data(), s.object);
}

/// A plan's tag: a hash of what plan_fits compares first (the schedule's type, steps and
/// root, the rank, the buffers and their sizes, the reducer's kind), so most plans of other
/// calls are passed over without reading them.
inline std::uint64_t plan_tag(const ScheduleRef& s, const EndpointRef& ep, const std::array<ByteBuffer, 3>& bufs,
                              const Reducer* red)
{
  // Rotated and combined independently, one multiply at the end: a few cycles (a chain of
  // multiplies was a fifth of a call's own work when two calls alternate).
  auto rot = [](std::uint64_t v, int k) { return (v << k) | (v >> (64 - k)); };
  std::uint64_t h = std::bit_cast<std::uintptr_t>(s.visit) ^ rot(s.steps, 7) ^ rot(ep.rank, 13) ^ rot(s.root, 19) ^
                    rot(red != nullptr ? std::bit_cast<std::uintptr_t>(red->fn) : 0, 29);
  // Not the scratch's address: the context's, which a larger call may move; a plan made
  // over the old one keeps its tag, so the call finds it (it does not fit) and makes it
  // again in its slot (run_steps) instead of leaving it there, never to fit again.
  h ^= rot(std::bit_cast<std::uintptr_t>(bufs[0].data), 3) ^ rot(bufs[0].layout.n, 37) ^
       rot(std::bit_cast<std::uintptr_t>(bufs[1].data), 43) ^ rot(bufs[1].layout.n, 53) ^ rot(bufs[2].layout.n, 59);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 32);
}

/// Makes `plan` for this call from the schedule's visits (see Plan). Kept for later calls
/// (valid) only when the schedule vouches for its value (ScheduleRef::same).
template <class P, class Context>
void make_plan(P& plan, const ScheduleRef& s, const EndpointRef& ep, const std::array<ByteBuffer, 3>& bufs,
               const Reducer* red, Context& x)
{
  plan.valid = false;
  plan.schedule = s;
  if (s.value_bytes != 0) std::memcpy(plan.value.data(), s.object, s.value_bytes);
  plan.bufs = bufs;
  plan.rank = ep.rank;
  plan.combines_on_receive = ep.combines_on_receive;
  plan.combines_into_sends = ep.combines_into_sends;
  plan.reduces = red != nullptr;
  plan.kind = red != nullptr ? *red : Reducer{};
  plan.red = red;
  const std::size_t elem = red != nullptr ? red->elem : 1;
  const std::size_t grain = red != nullptr && red->concurrent ? elem : 0; // see ReceiveCombine
  plan.combine_contexts = {CombineContext{&plan.red, Combine::left}, CombineContext{&plan.red, Combine::right}};
  plan.on_receive = {ReceiveCombine{&combine_on_receive, &plan.combine_contexts[0], grain},
                     ReceiveCombine{&combine_on_receive, &plan.combine_contexts[1], grain}};
  plan.steps.clear();
  plan.sends.clear();
  plan.recvs.clear();
  plan.locals.clear();
  plan.send_pieces.clear();
  plan.recv_pieces.clear();
  plan.send_first.clear();
  plan.recv_first.clear();
  plan.staged_at.clear();
  plan.staged.clear();
  plan.fused.clear();
  plan.direct.clear();
  plan.fusions.clear();

  const std::size_t me = ep.rank;
  const bool transport_combines = ep.combines_on_receive;
  auto view = [&](Buffer b) -> const ByteBuffer& { return bufs[static_cast<std::size_t>(b)]; };
  std::size_t staging_bytes = 0;
  for (std::size_t k = 0; k < s.steps; ++k) {
    auto& ops = x.ops_;
    ops.sends.clear();
    ops.recvs.clear();
    ops.locals.clear();
    s.visit(s.object, me, k, ops);
    PlanStep& st = plan.steps.emplace_back(); // filled in place (a copy of it stalled on store forwarding)
    st.send_first = plan.sends.size();
    st.sends = ops.sends.size();
    st.recv_first = plan.recvs.size();
    st.recvs = ops.recvs.size();
    st.local_first = plan.locals.size();
    st.locals = ops.locals.size();
    st.staged_first = plan.staged_at.size();
    plan.sends.insert(plan.sends.end(), ops.sends.begin(), ops.sends.end());
    plan.recvs.insert(plan.recvs.end(), ops.recvs.begin(), ops.recvs.end());
    plan.locals.insert(plan.locals.end(), ops.locals.begin(), ops.locals.end());
    plan.fused.resize(plan.locals.size(), 0);
    plan.fusions.resize(plan.recvs.size());

    const std::size_t first_send_piece = plan.send_pieces.size();
    const std::size_t first_recv_piece = plan.recv_pieces.size();
    for (const auto& snd : ops.sends) {
      plan.send_first.push_back(plan.send_pieces.size());
      append_pieces(view(snd.blocks.buffer), elem, snd.blocks, plan.send_pieces);
    }
    // Combining receives land in staging (from offset 0 in every step) unless the
    // transport combines on receipt; one into blocks this step sends (in place) also
    // unless the transport keeps its open sends intact (combines_into_sends).
    std::size_t staged = 0;
    for (std::size_t i = 0; i < ops.recvs.size(); ++i) {
      const RecvOp& rcv = ops.recvs[i];
      plan.recv_first.push_back(plan.recv_pieces.size());
      // A transport that combines on receipt also runs a combining local op that follows
      // a copying receive into the same blocks, in the same pass (FusedCombine).
      if (transport_combines && rcv.combine == Combine::copy && red != nullptr && red->fn3 != nullptr)
        for (std::size_t li = 0; li < ops.locals.size(); ++li) {
          if (plan.fused[st.local_first + li] != 0 || !fusable(ops, li, rcv, bufs, elem)) continue;
          const LocalOp& loc = ops.locals[li];
          const auto [dst, other] = alike_starts(view(rcv.blocks.buffer), rcv.blocks, view(loc.from.buffer), loc.from, elem);
          if (dst == nullptr) break;
          plan.fused[st.local_first + li] = 1;
          plan.fusions[st.recv_first + i] = FusedCombine{&plan.red, loc.combine, dst, other};
          break;
        }
      bool stage = rcv.combine != Combine::copy && !transport_combines;
      if (rcv.combine != Combine::copy && transport_combines && !ep.combines_into_sends)
        for (const SendOp& snd : ops.sends)
          stage = stage || overlaps(view(rcv.blocks.buffer), rcv.blocks, view(snd.blocks.buffer), snd.blocks, elem);
      plan.staged.push_back(stage ? 1 : 0);
      if (!stage) {
        append_pieces(view(rcv.blocks.buffer), elem, rcv.blocks, plan.recv_pieces);
      } else {
        const std::size_t n = pattern_elements(view(rcv.blocks.buffer), rcv.blocks) * elem;
        plan.staged_at.push_back(staged);
        if (n != 0) plan.recv_pieces.push_back(MutableBytes{nullptr, n}); // placed below
        staged += n;
      }
    }
    st.staged = staged != 0;
    st.early = early_locals(ops, bufs, elem);
    if (st.early != 0 && ep.takes_work != nullptr) {
      std::size_t bytes = 0;
      for (std::size_t i = first_send_piece; i < plan.send_pieces.size(); ++i) bytes += plan.send_pieces[i].size;
      for (std::size_t i = first_recv_piece; i < plan.recv_pieces.size(); ++i) bytes += plan.recv_pieces[i].size;
      if (!ep.takes_work(ep.ep, bytes)) st.early = 0; // the executor runs them after the exchange
    }
    if (!ops.locals.empty()) {
      plan.direct.resize(plan.locals.size(), 0);
      for (std::size_t li = 0; li < ops.locals.size(); ++li) // (a fused op never runs alone)
        if (plan.fused[st.local_first + li] == 0 && direct_local(ops.locals[li], bufs, elem))
          plan.direct[st.local_first + li] = 1;
    }
    staging_bytes = staged > staging_bytes ? staged : staging_bytes;
  }
  plan.send_first.push_back(plan.send_pieces.size());
  plan.recv_first.push_back(plan.recv_pieces.size());

  // Staging: one region for every step, sized now, so no piece moves afterwards.
  plan.staging_bytes = staging_bytes;
  plan.staging = staging_bytes != 0 ? x.staging_.get(staging_bytes) : nullptr;
  // Each staged receive's one piece (none when empty) at its offset in the region.
  for (std::size_t i = 0, c = 0; i < plan.recvs.size(); ++i) {
    if (plan.staged[i] == 0) continue;
    const std::size_t first = plan.recv_first[i];
    if (plan.recv_first[i + 1] != first) plan.recv_pieces[first].data = plan.staging + plan.staged_at[c];
    ++c;
  }

  // The requests, now that the piece lists are final.
  plan.send_requests.clear();
  plan.recv_requests.clear();
  plan.fused_combines.assign(plan.recvs.size(), ReceiveCombine{});
  for (std::size_t i = 0; i < plan.sends.size(); ++i)
    plan.send_requests.push_back(SendRequest{plan.sends[i].peer,
                                             std::span<const ConstBytes>(plan.send_pieces.data() + plan.send_first[i],
                                                                         plan.send_first[i + 1] - plan.send_first[i])});
  for (std::size_t i = 0; i < plan.recvs.size(); ++i) {
    const RecvOp& rcv = plan.recvs[i];
    const ReceiveCombine* how = nullptr;
    if (transport_combines && rcv.combine != Combine::copy && plan.staged[i] == 0)
      how = &plan.on_receive[rcv.combine == Combine::left ? 0 : 1];
    if (transport_combines && plan.fusions[i].red != nullptr) {
      plan.fused_combines[i] = ReceiveCombine{&fused_on_receive, &plan.fusions[i], grain};
      how = &plan.fused_combines[i];
    }
    plan.recv_requests.push_back(RecvRequest{rcv.peer,
                                             std::span<const MutableBytes>(plan.recv_pieces.data() + plan.recv_first[i],
                                                                           plan.recv_first[i + 1] - plan.recv_first[i]),
                                             how});
  }
  require_apart_or_same(plan, bufs, elem);

  // Counted layouts: keep the counts and displacements of every block a pattern names.
  std::array<std::size_t, 3> blocks{};
  auto note = [&](const Pattern& pat) {
    const auto i = static_cast<std::size_t>(pat.buffer);
    if (bufs[i].layout.counts != nullptr)
      for (std::size_t j = 0; j < pat.count; ++j)
        if (pat[j] >= blocks[i]) blocks[i] = pat[j] + 1;
  };
  for (const SendOp& op : plan.sends) note(op.blocks);
  for (const RecvOp& op : plan.recvs) note(op.blocks);
  for (const LocalOp& op : plan.locals) {
    note(op.from);
    note(op.to);
  }
  for (std::size_t i = 0; i < bufs.size(); ++i) {
    const BlockLayout& l = bufs[i].layout;
    plan.counts[i].assign(l.counts, l.counts == nullptr ? l.counts : l.counts + blocks[i]);
    plan.displs[i].assign(l.displs, l.counts == nullptr ? l.displs : l.displs + blocks[i]);
  }
  plan.valid = s.same != nullptr;
}

/// Runs the steps of `plan`: per step, one exchange of its requests, the combines the
/// transport did not do on receipt, then the local operations.
template <class P, class Context>
void run_plan(const P& plan, const EndpointRef& ep, const std::array<ByteBuffer, 3>& bufs, const Reducer* red,
              Context& x, StepInfo& info)
{
  const std::size_t elem = red != nullptr ? red->elem : 1;
  auto view = [&](Buffer b) -> const ByteBuffer& { return bufs[static_cast<std::size_t>(b)]; };
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    const PlanStep& st = plan.steps[k];
    info.step = k;
    if (k != 0) ep.mark(Phase::post, true, info); // step 0's began before the plan was found
    ep.mark(Phase::post, false, info);
    std::size_t first_local = 0; // the local ops the exchange ran (StepWork)
    if (st.sends != 0 || st.recvs != 0) {
      const std::span<const SendRequest> sends(plan.send_requests.data() + st.send_first, st.sends);
      const std::span<const RecvRequest> recvs(plan.recv_requests.data() + st.recv_first, st.recvs);
      if (st.early != 0 && ep.exchange_work != nullptr) {
        EarlyLocals early{plan.locals.data() + st.local_first, st.early, &bufs, elem, &ep, &info};
        ep.exchange_work(ep.ep, sends, recvs, info, StepWork{&EarlyLocals::run, &early});
        first_local = st.early;
      } else {
        ep.exchange(ep.ep, sends, recvs, info);
      }
      if (st.staged) {
        ep.mark(Phase::combine, true, info);
        std::size_t c = st.staged_first;
        for (std::size_t i = 0; i < st.recvs; ++i) {
          const RecvOp& rcv = plan.recvs[st.recv_first + i];
          if (plan.staged[st.recv_first + i] != 0)
            scatter_into(view(rcv.blocks.buffer), rcv.blocks, plan.staging + plan.staged_at[c++], rcv.combine, red,
                         elem);
        }
        ep.mark(Phase::combine, false, info);
      }
    }

    for (std::size_t li = first_local; li < st.locals; ++li) {
      if (plan.fused[st.local_first + li] != 0) continue; // done on receipt
      const LocalOp& loc = plan.locals[st.local_first + li];
      const ByteBuffer& from = view(loc.from.buffer);
      const ByteBuffer& to = view(loc.to.buffer);
      const Phase ph = loc.combine == Combine::copy ? Phase::copy : Phase::combine;
      ep.mark(ph, true, info);
      const bool direct = plan.direct[st.local_first + li] != 0;
      if (loc.combine == Combine::copy && direct) {
        copy_local(loc, from, to, elem);
      } else if (loc.combine != Combine::copy && red != nullptr && direct) {
        // Block i into block i, in place, no staging.
        for (std::size_t i = 0; i < loc.from.count; ++i) {
          const std::size_t n = from.layout.length(loc.from[i]);
          if (n != 0)
            red->fn(red->op, to.data + to.layout.offset(loc.to[i]) * elem, from.data + from.layout.offset(loc.from[i]) * elem,
                    n, loc.combine);
        }
      } else {
        // Read everything first, then write: a local op is a parallel assignment.
        const std::size_t n = pattern_elements(from, loc.from) * elem;
        std::byte* tmp = x.local_.get(n);
        gather_from(from, loc.from, tmp, elem);
        scatter_into(to, loc.to, tmp, loc.combine, red, elem);
      }
      ep.mark(ph, false, info);
    }
  }
}

/// Runs a call: with the plan an earlier call left for it (ExecContext keeps the latest few),
/// or with one made now from the schedule's visits.
template <class Context>
void run_steps(const ScheduleRef& s, const EndpointRef& ep, const std::array<ByteBuffer, 3>& bufs, const Reducer* red,
               Context& x, StepInfo& info)
{
  if (info.steps == 0) info.steps = s.steps;
  if (red != nullptr) info.element_bytes = red->elem;
  if (s.steps == 0) return;
  info.step = 0;
  x.begin_run(ep, info);
  auto& slots = x.plans_;
  using P = std::remove_cvref_t<decltype(*slots.plans[0])>; // Plan (dependent: see plan_fits)
  const std::size_t kept = slots.plans.size();
  auto fits = [&](std::size_t i) {
    const auto& p = *slots.plans[i];
    return plan_fits(p, s, ep, bufs, red) && (p.staging_bytes == 0 || x.staging_.get(p.staging_bytes) == p.staging);
  };
  // The latest plan first (a loop of one call), the one before it (two calls in turn),
  // then the plans whose tag matches.
  std::size_t found = plan_slots;
  std::size_t stale = plan_slots; // a slot whose plan has this call's tag but does not fit
  std::uint64_t tag = 0;
  bool tagged = false;
  if (s.same != nullptr && kept != 0) {
    if (fits(slots.latest)) {
      found = slots.latest;
    } else if (slots.previous < kept && slots.previous != slots.latest && fits(slots.previous)) {
      found = slots.previous;
    } else {
      tag = plan_tag(s, ep, bufs, red);
      tagged = true;
      for (std::size_t i = 0; i < kept; ++i)
        if (slots.tag[i] == tag) {
          if (i != slots.latest && i != slots.previous && fits(i)) {
            found = i;
            break;
          }
          // This call's plan, made over scratch or staging that a larger call has moved
          // since (plan_tag leaves the scratch out): made again in its own slot, it does
          // not take another's, and no plan that can never fit again stays kept.
          if (plan_fits<true>(*slots.plans[i], s, ep, bufs, red)) stale = i;
        }
    }
  }
  P* plan = nullptr;
  if (found != plan_slots) {
    plan = slots.plans[found].get();
    x.reuse(*plan, red);
  } else {
    if (s.same == nullptr && slots.unkept < kept) {
      found = slots.unkept; // a plan that is not kept: always the same slot
    } else if (stale != plan_slots) {
      found = stale;
    } else if (kept < plan_slots) {
      if (slots.plans.capacity() < plan_slots) slots.plans.reserve(plan_slots);
      slots.plans.push_back(std::make_unique<P>());
      found = kept;
    } else if (s.same != nullptr && slots.made_in_a_row >= plan_churn_after && slots.newest < kept) {
      // A loop over more calls than slots: under the least recently used rule every call
      // would evict the plan needed next and none would be reused. Churning one slot keeps
      // the others' plans for the next round (a loop over 100 calls reuses about half).
      found = slots.newest;
    } else {
      found = 0;
      for (std::size_t i = 1; i < plan_slots; ++i)
        if (slots.used[i] < slots.used[found]) found = i;
    }
    if (s.same != nullptr && found != stale) {
      slots.newest = found;
      ++slots.made_in_a_row;
    }
    slots.unkept = s.same == nullptr ? found : found == slots.unkept ? plan_slots : slots.unkept;
    plan = slots.plans[found].get();
    slots.tag[found] = tagged ? tag : plan_tag(s, ep, bufs, red);
    // Sized to the largest plan seen before it is made (its lists are empty here).
    plan->valid = false;
    std::size_t list = 0;
    plan->each_list([&](auto& v) {
      v.clear();
      v.reserve(x.plan_sizes_[list++]);
    });
    make_plan(*plan, s, ep, bufs, red, x);
    plan->stamp = ++x.plans_made_;
    bool grew = false;
    list = 0;
    plan->each_list([&](auto& v) {
      if (v.size() > x.plan_sizes_[list]) {
        x.plan_sizes_[list] = v.size();
        grew = true;
      }
      ++list;
    });
    // Every slot taken (a loop over more calls than slots): a plan kept since earlier may be
    // made again in any later round (plan_churn_after), so when the slots fill up or the
    // largest plan grows, every slot gets room for the largest now, in the loop's first
    // rounds, which allocate anyway. A plan whose lists moved is made again when next
    // called (its requests point into them).
    if (slots.plans.size() == plan_slots && (grew || kept + 1 == plan_slots))
      for (auto& other : slots.plans) {
        if (other.get() == plan) continue;
        list = 0;
        other->each_list([&](auto& v) {
          if (v.capacity() < x.plan_sizes_[list]) {
            v.reserve(x.plan_sizes_[list]);
            other->valid = false;
          }
          ++list;
        });
      }
  }
  x.ran(found);
  if (x.last_.armed < LastCalls::size) {
    // A front end's call (ExecContext::arm): its one kept plan may run again (LastCalls).
    LastCall& last = x.last_.calls[x.last_.armed];
    if (last.state == LastCall::State::armed && s.same != nullptr && plan->valid) {
      last.state = LastCall::State::ran;
      last.slot = found;
      last.stamp = plan->stamp;
      last.info = info;
    } else {
      x.last_.drop();
    }
  }
  run_plan(*plan, ep, bufs, red, x, info);
}

template <class Context>
void replay_steps(std::size_t entry, const EndpointRef& ep, const Reducer* red, Context& x, StepInfo& info)
{
  const std::size_t found = x.last_.calls[entry].slot;
  auto& plan = *x.plans_.plans[found];
  x.begin_run(ep, info);
  x.reuse(plan, red);
  ++x.calls_replayed_;
  x.ran(found);
  run_plan(plan, ep, plan.bufs, red, x, info);
}

#if COLLECTIVES_DETAIL_CORE_APART
void run_schedule_core(const ScheduleRef& s, const EndpointRef& ep, const std::array<ByteBuffer, 3>& bufs,
                       const Reducer* red, ExecContext& x, StepInfo& info)
{
  run_steps(s, ep, bufs, red, x, info);
}

void replay_core(std::size_t entry, const EndpointRef& ep, const Reducer* red, ExecContext& x, StepInfo& info)
{
  replay_steps(entry, ep, red, x, info);
}
#endif

} // namespace detail

} // namespace collectives
