#pragma once
// The one executor: runs any schedule on any endpoint. Per step it asks the schedule what
// this rank does, turns block patterns into byte pieces (merging blocks adjacent in
// memory), posts the step's messages together, combines what needs combining and runs
// the step's local ops.
//
// Its core moves bytes and is compiled once per endpoint type: the schedule is reached
// through a function pointer (ScheduleRef) and the element type and operator only
// through a Reducer, whose typed combine kernel is the one piece compiled per T and Op.
// Every buffer it needs between calls (the step's request lists, scratch space, staging
// for combining) lives in an ExecContext that a Communicator keeps, so a warmed-up rank
// allocates nothing per call or per step.

#include <collectives/algorithm/operators.hpp>
#include <collectives/execution/layout.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/transport/concepts.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>
#include <vector>

namespace collectives {

/// The operator used when a schedule never combines.
struct NoCombine {
  template <class T>
  constexpr T operator()(const T&, const T& b) const { return b; }
};

namespace detail {

/// A schedule seen through a function pointer.
struct ScheduleRef {
  const void* object = nullptr;
  std::size_t steps = 0;
  std::size_t scratch_blocks = 0;
  void (*visit)(const void*, std::size_t rank, std::size_t step, StepOps&) = nullptr;
};

template <schedule S>
void visit_thunk(const void* s, std::size_t rank, std::size_t step, StepOps& ops)
{
  static_cast<const S*>(s)->visit(rank, step, ops);
}

/// s as a ScheduleRef (s must outlive it).
template <schedule S>
ScheduleRef schedule_ref(const S& s)
{
  return {&s, s.num_steps(), s.scratch_blocks(), &visit_thunk<S>};
}

/// The typed part of a call: how to combine n elements at dst with n at src (fn), and n
/// at a with n at b into out (fn3: out = a op b; out overlaps neither). `concurrent`: the
/// operator may run on two threads at once over disjoint elements (concurrent_operator_v).
struct Reducer {
  void (*fn)(const void* op, std::byte* dst, const std::byte* src, std::size_t n, Combine how) = nullptr;
  const void* op = nullptr;
  std::size_t elem = 1;
  void (*fn3)(const void* op, std::byte* out, const std::byte* a, const std::byte* b, std::size_t n) = nullptr;
  bool concurrent = false;
};

/// dst[i] = src[i] op dst[i] (left) or dst[i] op src[i] (right). With an element-wise
/// operator, one loop per mode, so each vectorises; with an array operator
/// (array_operator: op.apply(in, inout, n) sets inout[i] = in[i] op inout[i], MPI's
/// convention), one call per block, and for `right` through a small buffer. dst and src do
/// not overlap.
template <class T, class Op>
void combine_kernel(const void* op_ptr, std::byte* dst_bytes, const std::byte* src_bytes, std::size_t n, Combine how)
{
  const Op& op = *static_cast<const Op*>(op_ptr);
  T* __restrict dst = reinterpret_cast<T*>(dst_bytes);
  const T* __restrict src = reinterpret_cast<const T*>(src_bytes);
  if (how == Combine::copy) {
    if (n != 0) std::memcpy(dst_bytes, src_bytes, n * sizeof(T));
  } else if constexpr (array_operator<Op, T>) {
    if (how == Combine::left) {
      op.apply(src, dst, n);
      return;
    }
    // dst op src: the array form puts its left operand first and writes its right one.
    constexpr std::size_t chunk = sizeof(T) >= 4096 ? 1 : 4096 / sizeof(T);
    alignas(alignof(T) > 64 ? alignof(T) : 64) std::byte buffer[chunk * sizeof(T)];
    T* tmp = reinterpret_cast<T*>(buffer);
    for (std::size_t i = 0; i < n; i += chunk) {
      const std::size_t k = n - i < chunk ? n - i : chunk;
      std::memcpy(static_cast<void*>(tmp), src + i, k * sizeof(T));
      op.apply(dst + i, tmp, k);
      std::memcpy(static_cast<void*>(dst + i), tmp, k * sizeof(T));
    }
  } else if (how == Combine::left) {
    for (std::size_t i = 0; i < n; ++i) dst[i] = op(src[i], dst[i]);
  } else {
    for (std::size_t i = 0; i < n; ++i) dst[i] = op(dst[i], src[i]);
  }
}

/// out[i] = a[i] op b[i], in one pass (an array operator: out = b, then a op out). out
/// overlaps neither a nor b.
template <class T, class Op>
void combine3_kernel(const void* op_ptr, std::byte* out_bytes, const std::byte* a_bytes, const std::byte* b_bytes,
                     std::size_t n)
{
  const Op& op = *static_cast<const Op*>(op_ptr);
  T* __restrict out = reinterpret_cast<T*>(out_bytes);
  const T* __restrict a = reinterpret_cast<const T*>(a_bytes);
  const T* __restrict b = reinterpret_cast<const T*>(b_bytes);
  if constexpr (array_operator<Op, T>) {
    if (n == 0) return;
    std::memcpy(static_cast<void*>(out), b, n * sizeof(T));
    op.apply(a, out, n);
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
  }
}

template <class T, class Op>
Reducer make_reducer(const Op& op)
{
  // A call that never combines has nothing to fuse: no fn3, so its steps skip the search.
  if constexpr (std::is_same_v<Op, NoCombine>) return {&combine_kernel<T, Op>, &op, sizeof(T), nullptr, true};
  else return {&combine_kernel<T, Op>, &op, sizeof(T), &combine3_kernel<T, Op>, concurrent_operator_v<Op>};
}

/// One buffer of a call: its first byte and its block layout (in elements).
struct ByteBuffer {
  std::byte* data = nullptr;
  BlockLayout layout{};
};

/// Growable memory aligned for any element type, kept between calls.
class AlignedRegion {
public:
  AlignedRegion() = default;
  AlignedRegion(const AlignedRegion&) : AlignedRegion() {} // a copy starts empty
  AlignedRegion& operator=(const AlignedRegion&) { return *this; }
  ~AlignedRegion() { release(); }

  /// At least `bytes` bytes (their content is not kept when it grows).
  std::byte* get(std::size_t bytes)
  {
    if (bytes > capacity_) {
      release();
      const std::size_t want = bytes < 2 * capacity_ ? 2 * capacity_ : bytes;
      data_ = static_cast<std::byte*>(::operator new(want, std::align_val_t{alignment}));
      capacity_ = want;
    }
    return data_;
  }
  std::size_t capacity() const { return capacity_; }

private:
  static constexpr std::size_t alignment = 64;
  void release()
  {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t{alignment});
    data_ = nullptr;
    capacity_ = 0;
  }
  std::byte* data_ = nullptr;
  std::size_t capacity_ = 0;
};

/// A copying receive fused with the step's local op that combines another buffer into the
/// received blocks: the transport, combining on receipt, writes `other op incoming`
/// (Combine::left) or `incoming op other` (right) straight into the destination, one pass
/// over each byte instead of a copy and then a combine. The destination and `other` are
/// each one piece of the same size.
struct FusedCombine {
  const Reducer* red = nullptr;
  Combine how = Combine::copy;
  const std::byte* dst_base = nullptr;
  const std::byte* other_base = nullptr;
};

} // namespace detail

/// Per-communicator reusable state of the executor: request lists and memory for scratch,
/// staging and results. Not shared between threads; a collective's operator must not call
/// another collective on the same communicator.
class ExecContext {
public:
  /// Scratch space for a schedule's scratch blocks.
  std::byte* scratch(std::size_t bytes) { return scratch_.get(bytes); }
  /// Room for a whole result on ranks whose caller gave none (output_everywhere).
  std::byte* result(std::size_t bytes) { return result_.get(bytes); }
  /// A copy of an in-place call's contribution, for schedules that read their input
  /// while writing the output.
  std::byte* contribution(std::size_t bytes) { return contribution_.get(bytes); }
  /// Bytes held for reuse.
  std::size_t bytes_held() const
  {
    return scratch_.capacity() + staging_.capacity() + local_.capacity() + result_.capacity() +
           contribution_.capacity();
  }

private:
  template <class E>
  friend void run_schedule(const detail::ScheduleRef&, E&, std::array<detail::ByteBuffer, 3>, const detail::Reducer*,
                           ExecContext&, StepInfo);

  StepOps ops_;
  std::vector<ConstBytes> send_pieces_;
  std::vector<MutableBytes> recv_pieces_;
  std::vector<std::size_t> send_first_, recv_first_, staged_at_;
  std::vector<SendRequest> sends_;
  std::vector<RecvRequest> recvs_;
  std::vector<unsigned char> fused_;            // per local op of the step: done on receipt
  std::vector<detail::FusedCombine> fusions_;   // per receive: its fused local op, if any
  std::vector<ReceiveCombine> fused_combines_;  // per receive
  detail::AlignedRegion scratch_, staging_, local_, result_, contribution_;
};

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

} // namespace detail

/// Runs the schedule `s` as rank ep.rank() over `bufs` (input, output, scratch; the input
/// may alias the output for in-place operations whose schedules never read the input),
/// combining with `red` where the schedule says (null when it never combines). `info`
/// names the call; its step is filled in. collective: every rank must call it with the
/// same schedule.
template <class E>
void run_schedule(const detail::ScheduleRef& s, E& ep, std::array<detail::ByteBuffer, 3> bufs,
                  const detail::Reducer* red, ExecContext& x, StepInfo info)
{
  using detail::ByteBuffer;
  const std::size_t me = ep.rank();
  const std::size_t elem = red != nullptr ? red->elem : 1;
  auto view = [&](Buffer b) -> const ByteBuffer& { return bufs[static_cast<int>(b)]; };
  const detail::CombineContext left{red, Combine::left}, right{red, Combine::right};
  const std::size_t grain = red != nullptr && red->concurrent ? elem : 0; // see ReceiveCombine
  const ReceiveCombine on_left{&detail::combine_on_receive, &left, grain},
      on_right{&detail::combine_on_receive, &right, grain};
  constexpr bool transport_combines = combines_on_receive_v<E>;

  for (std::size_t k = 0; k < s.steps; ++k) {
    info.step = k;
    detail::mark_phase(ep, Phase::post, true, info);
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
        detail::append_pieces(view(snd.blocks.buffer), elem, snd.blocks, x.send_pieces_);
      }
      x.send_first_.push_back(x.send_pieces_.size());
      // Combining receives land in staging unless the transport combines on receipt.
      std::size_t staged_bytes = 0;
      if (!transport_combines)
        for (const auto& r : x.ops_.recvs)
          if (r.combine != Combine::copy) staged_bytes += detail::pattern_elements(view(r.blocks.buffer), r.blocks) * elem;
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
        if constexpr (transport_combines) {
          x.fusions_[i] = {};
          if (rcv.combine == Combine::copy && red != nullptr && red->fn3 != nullptr)
            for (std::size_t li = 0; li < x.ops_.locals.size(); ++li) {
              if (x.fused_[li] != 0 || !detail::fusable(x.ops_, li, rcv, bufs)) continue;
              const LocalOp& loc = x.ops_.locals[li];
              const ConstBytes dst = detail::single_piece(view(rcv.blocks.buffer), elem, rcv.blocks);
              const ConstBytes other = detail::single_piece(view(loc.from.buffer), elem, loc.from);
              if (dst.data == nullptr || other.data == nullptr || dst.size != other.size) break;
              x.fused_[li] = 1;
              x.fusions_[i] = detail::FusedCombine{red, loc.combine, dst.data, other.data};
              x.fused_combines_[i] = ReceiveCombine{&detail::fused_on_receive, &x.fusions_[i], grain};
              break;
            }
        }
        if (rcv.combine == Combine::copy || transport_combines) {
          detail::append_pieces(view(rcv.blocks.buffer), elem, rcv.blocks, x.recv_pieces_);
        } else {
          const std::size_t n = detail::pattern_elements(view(rcv.blocks.buffer), rcv.blocks) * elem;
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
      detail::mark_phase(ep, Phase::post, false, info);
      detail::exchange_step(ep, std::span<const SendRequest>(x.sends_), std::span<const RecvRequest>(x.recvs_), info);
      if (staging != nullptr) {
        detail::mark_phase(ep, Phase::combine, true, info);
        std::size_t c = 0;
        for (const auto& rcv : x.ops_.recvs)
          if (rcv.combine != Combine::copy)
            detail::scatter_into(view(rcv.blocks.buffer), rcv.blocks, staging + x.staged_at_[c++], rcv.combine, red,
                                 elem);
        detail::mark_phase(ep, Phase::combine, false, info);
      }
    } else {
      detail::mark_phase(ep, Phase::post, false, info);
      x.fused_.assign(x.ops_.locals.size(), 0);
    }

    for (std::size_t li = 0; li < x.ops_.locals.size(); ++li) {
      if (x.fused_[li] != 0) continue; // done on receipt
      const LocalOp& loc = x.ops_.locals[li];
      const ByteBuffer& from = view(loc.from.buffer);
      const ByteBuffer& to = view(loc.to.buffer);
      const Phase ph = loc.combine == Combine::copy ? Phase::copy : Phase::combine;
      detail::mark_phase(ep, ph, true, info);
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
        const std::size_t n = detail::pattern_elements(from, loc.from) * elem;
        std::byte* tmp = x.local_.get(n);
        detail::gather_from(from, loc.from, tmp, elem);
        detail::scatter_into(to, loc.to, tmp, loc.combine, red, elem);
      }
      detail::mark_phase(ep, ph, false, info);
    }
  }
}

#if defined(COLLECTIVES_SEPARATE_COMPILATION)
// Compiled once, for the threads transport (collectives/separate_compilation.hpp); every
// other endpoint instantiates it where it is used.
namespace threads {
class Endpoint;
}
extern template void run_schedule<threads::Endpoint>(const detail::ScheduleRef&, threads::Endpoint&,
                                                     std::array<detail::ByteBuffer, 3>, const detail::Reducer*,
                                                     ExecContext&, StepInfo);
#endif

/// Runs schedule `s` as rank ep.rank() of endpoint `ep` over typed buffers, with `ctx`'s
/// reusable memory. input/output: the caller's buffers with their block layouts (input
/// may alias output for in-place operations whose schedules never read input); scratch
/// holds s.scratch_blocks() blocks laid out by `scratch_layout` (not value-initialised:
/// the verifier rejects schedules that read scratch before writing it). `op` combines
/// where the schedule says. collective: every rank must call it with the same schedule.
template <schedule S, endpoint E, class T, class Op = NoCombine>
void execute(const S& s, E& ep, ExecContext& ctx, const T* input, BlockLayout in_layout, T* output,
             BlockLayout out_layout, BlockLayout scratch_layout, Op op = {}, StepInfo info = {})
{
  static_assert(std::is_trivially_copyable_v<T>, "collectives::execute: T must be trivially copyable");
  const std::size_t scratch_bytes = scratch_layout.extent(s.scratch_blocks()) * sizeof(T);
  std::byte* scratch = scratch_bytes == 0 ? nullptr : ctx.scratch(scratch_bytes);
  const detail::Reducer red = detail::make_reducer<T>(op);
  const std::array<detail::ByteBuffer, 3> bufs{
    detail::ByteBuffer{reinterpret_cast<std::byte*>(const_cast<T*>(input)), in_layout},
    detail::ByteBuffer{reinterpret_cast<std::byte*>(output), out_layout},
    detail::ByteBuffer{scratch, scratch_layout},
  };
  if (info.steps == 0) info.steps = s.num_steps();
  info.element_bytes = sizeof(T);
  run_schedule(detail::schedule_ref(s), ep, bufs, &red, ctx, info);
}

/// execute() with a context of its own (allocates; collectives use their communicator's).
template <schedule S, endpoint E, class T, class Op = NoCombine>
void execute(const S& s, E& ep, const T* input, BlockLayout in_layout, T* output, BlockLayout out_layout,
             BlockLayout scratch_layout, Op op = {})
{
  ExecContext ctx;
  execute(s, ep, ctx, input, in_layout, output, out_layout, scratch_layout, op);
}

/// execute() with uniform scratch blocks of `scratch_m` elements.
template <schedule S, endpoint E, class T, class Op = NoCombine>
void execute(const S& s, E& ep, const T* input, BlockLayout in_layout, T* output, BlockLayout out_layout,
             std::size_t scratch_m, Op op = {})
{
  execute(s, ep, input, in_layout, output, out_layout, BlockLayout{scratch_m}, op);
}

} // namespace collectives
