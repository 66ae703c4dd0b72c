#pragma once
// The executor core's definition (execution/executor.hpp declares run_steps) and
// the helpers only it uses: included by that header, or compiled once with
// COLLECTIVES_SEPARATE_COMPILATION (collectives/separate_compilation.hpp).

#include <collectives/execution/executor.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <span>
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

struct CombineContext {
  const Reducer* red;
  Combine how;
};

inline void combine_on_receive(const void* ctx, std::byte* dst, const std::byte* src, std::size_t bytes)
{
  const auto& c = *static_cast<const CombineContext*>(ctx);
  c.red->fn(c.red->op, dst, src, bytes / c.red->elem, c.how);
}

/// ReceiveCombine::fn of a FusedCombine: dst's old bytes are not read.
inline void fused_on_receive(const void* ctx, std::byte* dst, const std::byte* src, std::size_t bytes)
{
  const auto& f = *static_cast<const FusedCombine*>(ctx);
  const std::byte* other = f.other_base + (dst - f.dst_base);
  if (f.how == Combine::left) f.red->fn3(f.red->op, dst, other, src, bytes / f.red->elem);
  else f.red->fn3(f.red->op, dst, src, other, bytes / f.red->elem);
}

/// Whether local op `loc` of a step can run on receipt of copying receive `rcv`: it
/// combines, into exactly the received blocks, blocks of another buffer that no receive of
/// the step writes, and no earlier local op of the step touches either buffer; both sides
/// are one piece of the same size (checked by the caller).
/// (Buffers are the same memory or apart: an in-place call's input is its output.)
inline bool fusable(const StepOps& ops, std::size_t li, const RecvOp& rcv, const std::array<ByteBuffer, 3>& bufs)
{
  auto at = [&](Buffer b) { return bufs[static_cast<int>(b)].data; };
  const LocalOp& loc = ops.locals[li];
  if (loc.combine == Combine::copy || rcv.combine != Combine::copy) return false;
  if (at(loc.from.buffer) == at(loc.to.buffer)) return false;
  if (loc.to.buffer != rcv.blocks.buffer || loc.to.count != rcv.blocks.count || loc.from.count != loc.to.count)
    return false;
  for (std::size_t i = 0; i < loc.to.count; ++i)
    if (loc.to[i] != rcv.blocks[i]) return false;
  for (const auto& r : ops.recvs)
    if (at(r.blocks.buffer) == at(loc.from.buffer)) return false;
  for (std::size_t j = 0; j < li; ++j) {
    const LocalOp& e = ops.locals[j];
    for (Buffer b : {e.from.buffer, e.to.buffer})
      if (at(b) == at(loc.from.buffer) || at(b) == at(loc.to.buffer)) return false;
  }
  return true;
}

/// The one piece the blocks of `pat` make in `buf` (merging adjacent blocks), or a null
/// piece when they make none or several.
inline ConstBytes single_piece(const ByteBuffer& buf, std::size_t elem, const Pattern& pat)
{
  const std::byte* start = nullptr;
  std::size_t size = 0;
  for (std::size_t i = 0; i < pat.count; ++i) {
    const std::size_t n = buf.layout.length(pat[i]) * elem;
    if (n == 0) continue;
    const std::byte* at = buf.data + buf.layout.offset(pat[i]) * elem;
    if (start == nullptr) start = at;
    else if (start + size != at) return {};
    size += n;
  }
  return {start, size};
}

/// Walks the schedule's steps: per step, the requests from its operations, one exchange,
/// the combines the transport did not do on receipt, then the local operations.
template <class Context>
void run_steps(const ScheduleRef& s, const EndpointRef& ep, std::array<ByteBuffer, 3> bufs, const Reducer* red,
               Context& x, StepInfo info)
{
  const std::size_t me = ep.rank;
  const std::size_t elem = red != nullptr ? red->elem : 1;
  auto view = [&](Buffer b) -> const ByteBuffer& { return bufs[static_cast<int>(b)]; };
  const CombineContext left{red, Combine::left}, right{red, Combine::right};
  const std::size_t grain = red != nullptr && red->concurrent ? elem : 0; // see ReceiveCombine
  const ReceiveCombine on_left{&combine_on_receive, &left, grain},
      on_right{&combine_on_receive, &right, grain};
  const bool transport_combines = ep.combines_on_receive;

  for (std::size_t k = 0; k < s.steps; ++k) {
    info.step = k;
    ep.mark(Phase::post, true, info);
    x.ops_.sends.clear();
    x.ops_.recvs.clear();
    x.ops_.locals.clear();
    s.visit(s.object, me, k, x.ops_);

    if (!x.ops_.sends.empty() || !x.ops_.recvs.empty()) {
      x.send_pieces_.clear();
      x.recv_pieces_.clear();
      x.send_first_.clear();
      x.recv_first_.clear();
      x.staged_at_.clear();
      for (const auto& snd : x.ops_.sends) {
        x.send_first_.push_back(x.send_pieces_.size());
        append_pieces(view(snd.blocks.buffer), elem, snd.blocks, x.send_pieces_);
      }
      x.send_first_.push_back(x.send_pieces_.size());
      // Combining receives land in staging unless the transport combines on receipt.
      std::size_t staged_bytes = 0;
      if (!transport_combines)
        for (const auto& r : x.ops_.recvs)
          if (r.combine != Combine::copy) staged_bytes += pattern_elements(view(r.blocks.buffer), r.blocks) * elem;
      std::byte* const staging = staged_bytes != 0 ? x.staging_.get(staged_bytes) : nullptr;
      std::size_t staged = 0;
      // A transport that combines on receipt also runs a combining local op that follows a
      // copying receive into the same blocks, in the same pass (FusedCombine).
      x.fused_.assign(x.ops_.locals.size(), 0);
      if (transport_combines) {
        x.fusions_.resize(x.ops_.recvs.size());
        x.fused_combines_.resize(x.ops_.recvs.size());
      }
      std::size_t ri = 0;
      for (const auto& rcv : x.ops_.recvs) {
        const std::size_t i = ri++;
        x.recv_first_.push_back(x.recv_pieces_.size());
        if (transport_combines) {
          x.fusions_[i] = {};
          if (rcv.combine == Combine::copy && red != nullptr && red->fn3 != nullptr)
            for (std::size_t li = 0; li < x.ops_.locals.size(); ++li) {
              if (x.fused_[li] != 0 || !fusable(x.ops_, li, rcv, bufs)) continue;
              const LocalOp& loc = x.ops_.locals[li];
              const ConstBytes dst = single_piece(view(rcv.blocks.buffer), elem, rcv.blocks);
              const ConstBytes other = single_piece(view(loc.from.buffer), elem, loc.from);
              if (dst.data == nullptr || other.data == nullptr || dst.size != other.size) break;
              x.fused_[li] = 1;
              x.fusions_[i] = FusedCombine{red, loc.combine, dst.data, other.data};
              x.fused_combines_[i] = ReceiveCombine{&fused_on_receive, &x.fusions_[i], grain};
              break;
            }
        }
        if (rcv.combine == Combine::copy || transport_combines) {
          append_pieces(view(rcv.blocks.buffer), elem, rcv.blocks, x.recv_pieces_);
        } else {
          const std::size_t n = pattern_elements(view(rcv.blocks.buffer), rcv.blocks) * elem;
          x.staged_at_.push_back(staged);
          if (n != 0) x.recv_pieces_.push_back(MutableBytes{staging + staged, n});
          staged += n;
        }
      }
      x.recv_first_.push_back(x.recv_pieces_.size());
      x.sends_.clear();
      x.recvs_.clear();
      for (std::size_t i = 0; i < x.ops_.sends.size(); ++i)
        x.sends_.push_back(SendRequest{x.ops_.sends[i].peer,
                                       std::span<const ConstBytes>(x.send_pieces_.data() + x.send_first_[i],
                                                                   x.send_first_[i + 1] - x.send_first_[i])});
      for (std::size_t i = 0; i < x.ops_.recvs.size(); ++i) {
        const auto& rcv = x.ops_.recvs[i];
        const ReceiveCombine* how = nullptr;
        if (transport_combines && rcv.combine != Combine::copy) how = rcv.combine == Combine::left ? &on_left : &on_right;
        if (transport_combines && x.fusions_[i].red != nullptr) how = &x.fused_combines_[i];
        x.recvs_.push_back(RecvRequest{rcv.peer,
                                       std::span<const MutableBytes>(x.recv_pieces_.data() + x.recv_first_[i],
                                                                     x.recv_first_[i + 1] - x.recv_first_[i]),
                                       how});
      }
      ep.mark(Phase::post, false, info);
      ep.exchange(ep.ep, std::span<const SendRequest>(x.sends_), std::span<const RecvRequest>(x.recvs_), info);
      if (staging != nullptr) {
        ep.mark(Phase::combine, true, info);
        std::size_t c = 0;
        for (const auto& rcv : x.ops_.recvs)
          if (rcv.combine != Combine::copy)
            scatter_into(view(rcv.blocks.buffer), rcv.blocks, staging + x.staged_at_[c++], rcv.combine, red,
                                 elem);
        ep.mark(Phase::combine, false, info);
      }
    } else {
      ep.mark(Phase::post, false, info);
      x.fused_.assign(x.ops_.locals.size(), 0);
    }

    for (std::size_t li = 0; li < x.ops_.locals.size(); ++li) {
      if (x.fused_[li] != 0) continue; // done on receipt
      const LocalOp& loc = x.ops_.locals[li];
      const ByteBuffer& from = view(loc.from.buffer);
      const ByteBuffer& to = view(loc.to.buffer);
      const Phase ph = loc.combine == Combine::copy ? Phase::copy : Phase::combine;
      ep.mark(ph, true, info);
      if (loc.combine == Combine::copy && loc.from.buffer != loc.to.buffer) {
        for (std::size_t i = 0; i < loc.from.count; ++i) {
          const std::size_t n = from.layout.length(loc.from[i]) * elem;
          // memmove: in place, input and output are the same memory.
          if (n != 0)
            std::memmove(to.data + to.layout.offset(loc.to[i]) * elem, from.data + from.layout.offset(loc.from[i]) * elem,
                         n);
        }
      } else if (loc.combine != Combine::copy && red != nullptr && loc.from.buffer != loc.to.buffer && from.data != to.data &&
                 loc.from.count == loc.to.count) {
        // Combining across buffers that do not share memory (buffers are the same memory
        // or apart): block i into block i, in place, no staging.
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

#if defined(COLLECTIVES_SEPARATE_COMPILATION)
void run_schedule_core(const ScheduleRef& s, const EndpointRef& ep, std::array<ByteBuffer, 3> bufs,
                       const Reducer* red, ExecContext& x, StepInfo info)
{
  run_steps(s, ep, bufs, red, x, info);
}
#endif

} // namespace detail

} // namespace collectives
